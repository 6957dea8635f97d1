/**
 * Attachments under attack: a compromised window filling main's memory with
 * pending files, power cuts at every write of a send or a deletion, hostile
 * files, and an API that refuses the request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkAttachment, MAX_IMAGE_BYTES, MAX_TEXT_BYTES } from '../../../electron/core/chat/attachments';
import { PendingAttachments, MAX_PENDING_TOTAL_BYTES } from '../../../electron/core/chat/attachments-pending';
import { attachmentsOf, newAttachmentId } from '../../../electron/core/chat/attachments-send';
import { Conversations } from '../../../electron/core/chat/conversations';
import { runTurn, type PendingAttachment } from '../../../electron/core/chat/turn';
import type { ChatEvent } from '../../../electron/shared/chat';
import { VaultError, type VaultApi } from '../../../electron/core/vault/types';
import { apiError, reply, text } from '../../fake-anthropic/server';
import { jpegHeader, pdf, png, utf8 } from '../../fixtures/attachments/make';
import { chatRig, errorOf, type ChatRig } from './helpers';
import { cutAt, PowerCut } from './power-cut';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('it was accepted');
};

function attach(name: string, bytes: Uint8Array): PendingAttachment {
  const c = checkAttachment(name, bytes);
  return { id: newAttachmentId(), name: c.name, mediaType: c.mediaType, bytes: c.bytes.length, data: c.bytes };
}

describe('pending attachments cannot fill main’s memory', () => {
  it('refuses more pending bytes across all conversations than a few requests carry, naming the file, and takes files again once some are sent', () => {
    const pending = new PendingAttachments();
    // A compromised window spreads near-limit images over many conversations (each within its own 32 MB).
    const big = png(64, 64, [1, 2, 3], MAX_IMAGE_BYTES - 2000);
    let added = 0;
    let message = '';
    for (let conv = 0; conv < 40 && !message; conv++) {
      const id = conv.toString(16).padStart(16, '0');
      for (let i = 0; i < 8; i++) {
        try {
          pending.add(id, `shot-${conv}-${i}.png`, big);
          added += big.length;
        } catch (err) {
          message = (err as Error).message;
          break;
        }
      }
    }
    expect(added).toBeLessThanOrEqual(MAX_PENDING_TOTAL_BYTES);
    expect(message).toMatch(/“shot-\d+-\d\.png” was not added/);
    expect(message).toMatch(/Send or remove/);
    // Sending (dropping) one conversation's files makes room again.
    const first = '0'.repeat(16);
    pending.drop(first, pending.all(first).map((a) => a.id));
    expect(() => pending.add(first, 'again.png', big)).not.toThrow();
  });

  it('overwrites the bytes of every file it lets go of when the window removes them', () => {
    const pending = new PendingAttachments();
    const ref = pending.add('a'.repeat(16), 'note.txt', utf8('secret words'));
    const held = pending.all('a'.repeat(16))[0]!.data;
    pending.drop('a'.repeat(16), [ref.id]);
    expect([...held].every((b) => b === 0)).toBe(true);
    expect(refusal(() => pending.get('a'.repeat(16), [ref.id]))).toMatch(/no longer waiting/);
  });
});

/** Problems with the conversation as a restarted app opens it: every attachment an entry names must be stored, and nothing else of it. */
async function audit(vault: VaultApi, id: string): Promise<string[]> {
  const fresh = new Proxy(vault, { get: (target, prop) => Reflect.get(target, prop, target) as unknown });
  const c = new Conversations(fresh);
  await c.list();
  const conv = await c.get(id);
  if (!conv) return ['does not open'];
  const problems: string[] = [];
  const refs = attachmentsOf(conv.transcript);
  for (const ref of refs.values()) if (!(await c.getAttachment(id, ref.id))) problems.push(`“${ref.name}” is named but missing`);
  const stored = vault.internal.keys(`attachments/${id}/`).map((k) => k.split('/')[2]!);
  for (const s of stored) if (!refs.has(s)) problems.push(`stored attachment ${s} is referred to by nothing`);
  return problems;
}

describe('a power cut at any write of a send with attachments', () => {
  it('leaves the conversation opening with every named attachment present, earlier turns kept, and no bytes nothing refers to once the next message is sent', async () => {
    rig = await chatRig();
    const vault = rig.t.vault;
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('first')));
    await runTurn({ vault, conversationId: c.id, userText: 'first', env: rig.env, onEvent: () => undefined, attachments: [attach('a.png', png(4, 4))] });
    const problems: string[] = [];
    let points = 0;
    for (let at = 0; ; at++) {
      rig.fake.script(reply(text('ok')));
      const files = [attach('b.png', png(5, 5)), attach('c.txt', utf8('words'))];
      let finished = false;
      try {
        await runTurn({ vault: cutAt(vault, at).vault, conversationId: c.id, userText: `cut at ${at}`, env: rig.env, onEvent: () => undefined, attachments: files });
        finished = true;
      } catch (err) {
        if (!(err instanceof PowerCut)) throw err;
      }
      points++;
      const conv = (await new Conversations(vault).get(c.id))!;
      if (conv.transcript[0]?.text !== 'first') problems.push(`cut at ${at}: the acknowledged first turn is gone`);
      // The app is started again and the user sends the next message: whatever the cut left over is gone then.
      rig.fake.script(reply(text('next')));
      await runTurn({ vault, conversationId: c.id, userText: `after cut ${at}`, env: rig.env, onEvent: () => undefined });
      problems.push(...(await audit(vault, c.id)).map((p) => `cut at ${at}: ${p}`));
      if (finished) break;
    }
    expect(problems).toEqual([]);
    expect(points).toBeGreaterThanOrEqual(3);
  });

  it('a deletion cut at any write leaves the conversation whole or gone, and its attachments go at the next start', async () => {
    rig = await chatRig();
    const vault = rig.t.vault;
    const c = await rig.conversations.create();
    for (let i = 0; i < 3; i++) {
      rig.fake.script(reply(text('ok')));
      await runTurn({ vault, conversationId: c.id, userText: `turn ${i}`, env: rig.env, onEvent: () => undefined, attachments: [attach(`p${i}.png`, png(3, 3)), attach(`t${i}.txt`, utf8(`text ${i}`))] });
    }
    const problems: string[] = [];
    for (let at = 0; ; at++) {
      let finished = false;
      try {
        await new Conversations(cutAt(vault, at).vault).delete(c.id);
        finished = true;
      } catch (err) {
        if (!(err instanceof PowerCut)) throw err;
      }
      const fresh = new Conversations(new Proxy(vault, { get: (target, prop) => Reflect.get(target, prop, target) as unknown }));
      const listed = (await fresh.list()).some((s) => s.id === c.id);
      const conv = await fresh.get(c.id);
      if (listed && !conv) problems.push(`cut at ${at}: listed but does not open`);
      if (conv) problems.push(...(await audit(vault, c.id)).map((p) => `cut at ${at}: ${p}`));
      else if (vault.internal.keys(`attachments/${c.id}/`).length) problems.push(`cut at ${at}: gone but its attachments stay after a restart`);
      if (finished || !conv) break;
    }
    expect(problems).toEqual([]);
    expect(vault.internal.keys('attachments/')).toEqual([]);
  });
});

describe('the API refusing a request with attachments', () => {
  it('says clearly the message was not sent and keeps it for a retry (nothing stored)', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(apiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
    const events: ChatEvent[] = [];
    const saved = await runTurn({ vault: rig.t.vault, conversationId: c.id, userText: 'look', env: rig.env, maxRetries: 0, onEvent: (e) => events.push(e), attachments: [attach('big.png', png(8, 8))] });
    expect(saved).toBe(false);
    expect(errorOf(events)?.message).toMatch(/not sent; it is still in the box/);
    expect(rig.t.vault.internal.keys('attachments/')).toEqual([]);
    expect((await rig.conversations.get(c.id))!.transcript).toEqual([]);
  });
});

/** `vault` whose disk fills up after `room` more bytes are written to its internal store. */
function filling(vault: VaultApi, room: number): VaultApi {
  let left = room;
  const take = (n: number) => {
    if (n > left) throw new VaultError('IO', 'Could not write a vault file. The disk is full.');
    left -= n;
  };
  const inner = vault.internal;
  const internal: VaultApi['internal'] = {
    get: (k) => inner.get(k),
    getJSON: (k) => inner.getJSON(k),
    keys: (p) => inner.keys(p),
    put: async (k, v) => (take(v.length), inner.put(k, v)),
    putJSON: async (k, v) => (take(Buffer.byteLength(JSON.stringify(v))), inner.putJSON(k, v)),
    delete: (k) => inner.delete(k),
  };
  return new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) });
}

describe('a disk that fills up while a message with attachments is saved', () => {
  it('says the disk is full and that the exchange was not saved, leaves no attachment half-stored, and keeps earlier turns', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('first')));
    await runTurn({ vault: rig.t.vault, conversationId: c.id, userText: 'first', env: rig.env, onEvent: () => undefined, attachments: [attach('a.png', png(4, 4))] });
    const before = rig.t.vault.internal.keys('attachments/');
    const big = attach('b.png', png(64, 64, [9, 9, 9], 200_000));
    const small = attach('s.png', png(5, 5));
    for (const room of [0, small.bytes + 10, small.bytes + big.bytes + 10]) {
      rig.fake.script(reply(text('seen')));
      const events: ChatEvent[] = [];
      const saved = await runTurn({ vault: filling(rig.t.vault, room), conversationId: c.id, userText: 'look', env: rig.env, onEvent: (e) => events.push(e), attachments: [small, big] });
      expect(saved).toBe(false);
      expect(errorOf(events)?.message).toMatch(/disk is full.*not saved/i);
      expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'error' });
      expect(rig.t.vault.internal.keys('attachments/')).toEqual(before);
      const conv = (await new Conversations(rig.t.vault).get(c.id))!;
      expect(conv.transcript.map((e) => e.text)).toEqual(['first', 'first']);
    }
  });
});

describe('hostile files', () => {
  const kind = (name: string, bytes: Uint8Array) => checkAttachment(name, bytes).mediaType;
  const hex = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s/g, ''), 'hex'));

  it('a PNG signature followed by HTML is refused as a damaged image, never taken as text or markup that could run', () => {
    const polyglot = new Uint8Array(Buffer.concat([Buffer.from(png(1, 1).subarray(0, 8)), Buffer.from('<html><script>alert(1)</script></html>')]));
    expect(refusal(() => checkAttachment('x.png', polyglot))).toMatch(/“x\.png” looks like a PNG image but its header is damaged/);
    // With a real header, HTML after the image data is only bytes of a PNG (sent and shown as image/png, never as a page).
    expect(kind('x.png', new Uint8Array(Buffer.concat([Buffer.from(png(2, 2)), Buffer.from('<html><script>alert(1)</script>')])))).toBe('image/png');
  });

  it('a PDF that is also a ZIP is a PDF', () => {
    const zip = Buffer.from('504b0304140000000000', 'hex');
    expect(kind('both.pdf', new Uint8Array(Buffer.concat([Buffer.from(pdf(1)), zip])))).toBe('application/pdf');
  });

  it('refuses images whose headers are cut short, and a JPEG with no frame header, without hanging on zero-length segments', () => {
    const cut: Array<[string, Uint8Array]> = [
      ['a.png', png(4, 4).subarray(0, 20)],
      ['a.jpg', hex('ffd8ff')],
      ['a.webp', new Uint8Array(Buffer.from('RIFF\x16\x00\x00\x00WEBPVP8X', 'latin1'))],
      ['a.gif', new Uint8Array(Buffer.from('GIF89a', 'latin1'))],
      ['nosof.jpg', hex('ffd8 ffe0 0010 4a46494600010100000100010000 ffda 0008 01 01 00 00 3f 00 d2cf20 ffd9')],
      ['loop.jpg', hex('ffd8 ffe0 0000 ffe0 0000 ffe0 0000 ffe0 0000 ffe0 0000 ffd9')],
    ];
    for (const [name, bytes] of cut) expect(refusal(() => checkAttachment(name, bytes))).toMatch(/header is damaged/);
    // A frame header after a Huffman table (which has the SOF-like marker C4) is still found.
    const withDht = hex('ffd8 ffc4 0005 00 00 00 ffc0 0011 08 0010 0020 03 012200 021101 031101 ffd9');
    expect(checkAttachment('dht.jpg', withDht)).toMatchObject({ mediaType: 'image/jpeg', width: 32, height: 16 });
    expect(checkAttachment('ok.jpg', jpegHeader(640, 480))).toMatchObject({ width: 640, height: 480 });
  });

  it('takes text with a UTF-8 BOM, refuses lone surrogates (WTF-8) and markup behind a BOM, and takes a 1 MB single line but not a byte more', () => {
    expect(kind('bom.txt', new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('hello')]))).toBe('text/plain');
    expect(refusal(() => checkAttachment('wtf.txt', new Uint8Array([...utf8('a'), 0xed, 0xa0, 0x80, ...utf8('b')])))).toMatch(/not UTF-8 text/);
    expect(refusal(() => checkAttachment('page.txt', new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('  <html><body>hi</body></html>')])))).toMatch(/HTML or SVG markup/);
    const line = new Uint8Array(MAX_TEXT_BYTES).fill(0x61);
    expect(kind('line.txt', line)).toBe('text/plain');
    expect(refusal(() => checkAttachment('line.txt', new Uint8Array(MAX_TEXT_BYTES + 1).fill(0x61)))).toMatch(/text files can be at most 1\.0 MB/);
  });
});
