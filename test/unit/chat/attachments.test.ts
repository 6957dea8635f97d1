import { describe, expect, it } from 'vitest';
import { checkAttachment, cleanName, imageSize, MAX_IMAGE_BYTES, sniff } from '../../../electron/core/chat/attachments';
import { gif, jpegHeader, pdf, png, pngHeader, utf8, webpHeader } from '../../fixtures/attachments/make';

const refusal = (name: string, bytes: Uint8Array): string => {
  try {
    checkAttachment(name, bytes);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('it was accepted');
};

describe('attachment types come from the bytes, never the name', () => {
  it('recognises PNG, JPEG, GIF, WebP, PDF and UTF-8 text whatever they are called', () => {
    expect(checkAttachment('photo', png(4, 3))).toMatchObject({ mediaType: 'image/png', width: 4, height: 3 });
    expect(checkAttachment('x.dat', jpegHeader(640, 480))).toMatchObject({ mediaType: 'image/jpeg', width: 640, height: 480 });
    expect(checkAttachment('anim', gif(10, 20))).toMatchObject({ mediaType: 'image/gif', width: 10, height: 20 });
    expect(checkAttachment('pic.bin', webpHeader(300, 200))).toMatchObject({ mediaType: 'image/webp', width: 300, height: 200 });
    expect(checkAttachment('report', pdf(2))).toMatchObject({ mediaType: 'application/pdf' });
    expect(checkAttachment('notes.md', utf8('# Notes\nçà va — 日本\n'))).toMatchObject({ mediaType: 'text/plain', name: 'notes.md' });
  });

  it('refuses a .png that is really HTML, and SVG, naming the file', () => {
    expect(refusal('cat.png', utf8('<!DOCTYPE html><script>alert(1)</script>'))).toMatch(/“cat\.png” is HTML or SVG markup/);
    expect(refusal('logo.svg', utf8('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toMatch(/HTML or SVG/);
    expect(refusal('page.txt', utf8('\uFEFF  <html><body>hi</body></html>'))).toMatch(/HTML or SVG/);
    expect(sniff(utf8('<svg onload=alert(1)>'))).toBe('html');
  });

  it('refuses a file named as an image or PDF whose content is something else', () => {
    expect(refusal('scan.pdf', png(2, 2))).toMatch(/named as a PDF but its content is a PNG image/);
    expect(refusal('photo.png', utf8('just words'))).toMatch(/named as a PNG image but its content is a text file/);
  });

  it('refuses text that is not UTF-8 with a clear way out, and binary files', () => {
    const latin1 = new Uint8Array(Buffer.from('caf\xe9 cr\xe8me', 'latin1'));
    expect(refusal('menu.txt', latin1)).toMatch(/not UTF-8 text: save it as UTF-8/);
    expect(refusal('prog.exe', new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03]))).toMatch(/not a file Claude can read here/);
  });
});

describe('attachment limits', () => {
  it('refuses an empty file', () => {
    expect(refusal('empty.txt', new Uint8Array(0))).toBe('“empty.txt” is empty, so there is nothing to attach.');
  });

  it('refuses an image over 5 MB once encoded (a 6 MB PNG) and accepts one just under', () => {
    expect(refusal('big.png', png(10, 10, [1, 2, 3], 6_000_000))).toMatch(/“big\.png” is 6\.0 MB; the API takes images up to 3\.9 MB \(5 MB once encoded\)/);
    const justUnder = png(10, 10, [1, 2, 3], MAX_IMAGE_BYTES - 200);
    expect(justUnder.length).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    expect(checkAttachment('ok.png', justUnder).mediaType).toBe('image/png');
  });

  it('refuses a 50 MB file before looking at what it is', () => {
    expect(refusal('huge.bin', new Uint8Array(50_000_000))).toMatch(/“huge\.bin” is 50 MB; attachments can be at most 23 MB/);
  });

  it('refuses a GIF that declares a huge size, and images over 8000×8000 px', () => {
    expect(refusal('bomb.gif', gif(65535, 65535))).toMatch(/65535×65535 pixels; the API takes images up to 8000×8000/);
    expect(refusal('wide.png', pngHeader(8001, 10))).toMatch(/8001×10 pixels/);
    expect(checkAttachment('edge.png', pngHeader(8000, 8000)).width).toBe(8000);
  });

  it('refuses an image whose header is cut short', () => {
    expect(refusal('cut.png', png(2, 2).subarray(0, 14))).toMatch(/header is damaged/);
    expect(imageSize(jpegHeader(0, 10), 'image/jpeg')).toBeUndefined();
  });

  it('refuses a PDF of more than 100 pages and text over 1 MB', () => {
    expect(refusal('book.pdf', pdf(101))).toMatch(/“book\.pdf” has 101 pages; the API reads at most 100 pages per request/);
    expect(checkAttachment('short.pdf', pdf(100)).mediaType).toBe('application/pdf');
    expect(refusal('log.txt', utf8('a'.repeat(1_000_001)))).toMatch(/text files can be at most 1\.0 MB/);
  });
});

describe('attachment names', () => {
  it('keeps only the last part of a path', () => {
    expect(cleanName('../../etc/passwd')).toBe('passwd');
    expect(cleanName('C:\\Users\\ada\\secret.txt')).toBe('secret.txt');
    expect(cleanName('..')).toBe('attachment');
    expect(cleanName('')).toBe('attachment');
    expect(cleanName('.hidden')).toBe('hidden');
  });

  it('removes control and bidi characters so a name cannot disguise its extension', () => {
    expect(cleanName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(cleanName('a\u0000b\u0007c\u2066d\u200Fe.txt')).toBe('abcde.txt');
    expect(cleanName('line\nbreak.txt')).toBe('line break.txt');
  });

  it('caps a long name and keeps its extension', () => {
    const name = cleanName(`${'n'.repeat(500)}.png`);
    expect([...name].length).toBe(120);
    expect(name.endsWith('….png')).toBe(true);
  });

  it('names the cleaned file in errors', () => {
    expect(refusal('../../\u202Eevil.png', utf8('<html></html>'))).toMatch(/^“evil\.png”/);
  });
});

describe('attachments in a Markdown export', () => {
  it('are listed under the message by name, type and size, with no content and no Markdown from the name', async () => {
    const { conversationMarkdown } = await import('../../../electron/core/chat/export-markdown');
    const md = conversationMarkdown({
      title: 'Files',
      created: 0,
      transcript: [
        { role: 'user', text: 'See these', at: 0, attachments: [{ id: 'a'.repeat(16), name: 'chart`*x*`.png', mediaType: 'image/png', bytes: 2048 }] },
        { role: 'user', text: 'No files', at: 1 },
      ],
    });
    expect(md).toContain("## You\n\n> Attached: `chart'*x*'.png` (image/png, 2048 bytes)\n\nSee these");
    expect(md).toContain('## You\n\nNo files');
  });
});
