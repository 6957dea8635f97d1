/**
 * `mnemo chat --attach FILE`: files checked as the app checks them, sent as
 * image and document blocks, and refused with a clear error (exit 2, nothing
 * sent, no conversation made) when they cannot go.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentBlocks, reply, startFakeAnthropic, text, type FakeAnthropic } from '../../fake-anthropic/server';
import { png, utf8 } from '../../fixtures/attachments/make';
import { initVault, mnemo } from './helpers';

let v: Awaited<ReturnType<typeof initVault>>;
let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;
let files: string;
beforeAll(async () => {
  v = await initVault();
  fake = await startFakeAnthropic();
  env = { ...v.env, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL };
  files = path.join(v.root, 'files');
  await fs.mkdir(files);
});
afterAll(async () => {
  await fake.close();
  await fs.rm(v.root, { recursive: true, force: true });
});

const run = (args: string[]) => mnemo([...args, '--vault', v.vault], { env });
const file = async (name: string, bytes: Uint8Array) => {
  const p = path.join(files, name);
  await fs.writeFile(p, bytes);
  return p;
};

describe('mnemo chat --attach', () => {
  it('sends a PNG and a text file as an image block and a text document, and keeps them with the conversation', async () => {
    const image = png(2, 2);
    const pic = await file('chart.png', image);
    const notes = await file('notes.txt', utf8('Q3: up 4%\n'));
    fake.script(reply(text('A chart and a note.')));
    const r = await run(['chat', '--once', 'Describe these', '--attach', pic, '--attach', notes]);
    expect(r).toMatchObject({ code: 0, stdout: 'A chart and a note.\n' });
    expect(attachmentBlocks(fake.requests.at(-1)!)).toEqual([
      { message: 0, type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.from(image).toString('base64') } },
      { message: 0, type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Q3: up 4%\n' }, title: 'notes.txt' },
    ]);
    const id = /conversation ([0-9a-f]+)/.exec(r.stderr)![1]!;
    fake.script(reply(text('Same chart.')));
    expect((await run(['chat', '--conversation', id, '--once', 'Again?'])).code).toBe(0);
    expect(attachmentBlocks(fake.requests.at(-1)!).map((b) => b.type)).toEqual(['image', 'document']);
  });

  it('refuses a 6 MB image with a clear error, sending nothing and making no conversation', async () => {
    const before = fake.requests.length;
    const listed = (await run(['conversations'])).stdout;
    const big = await file('huge.png', png(10, 10, [0, 0, 0], 6_000_000));
    const r = await run(['chat', '--once', 'look', '--attach', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mnemo: “huge.png” is 6.0 MB; the API takes images up to 3.9 MB (5 MB once encoded). Make it smaller and attach it again. Nothing was sent.\n');
    expect(fake.requests.length).toBe(before);
    expect((await run(['conversations'])).stdout).toBe(listed);
  });

  it('refuses a .png that is really HTML', async () => {
    const before = fake.requests.length;
    const fakePng = await file('cute-cat.png', utf8('<html><body><script>steal()</script></body></html>'));
    const r = await run(['chat', '--once', 'look', '--attach', fakePng]);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/^mnemo: “cute-cat\.png” is HTML or SVG markup, which cannot be attached\./) });
    expect(fake.requests.length).toBe(before);
  });

  it('names a missing file by its name only, never the folder it was looked for in', async () => {
    const r = await run(['chat', '--once', 'look', '--attach', path.join(files, 'nope.pdf')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Cannot read the file “nope\.pdf” given with --attach/);
    expect(r.stderr).not.toContain(files);
    expect(r.stderr).not.toMatch(/ENOENT/);
  });

  it('refuses a file too large to attach by its size, before reading it (a 3 GB file), and a folder or device that is no file', async () => {
    const before = fake.requests.length;
    const huge = path.join(files, 'backup.bin');
    const h = await fs.open(huge, 'w');
    await h.truncate(3_000_000_000);
    await h.close();
    const r = await run(['chat', '--once', 'look', '--attach', huge]);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/^mnemo: “backup\.bin” is 3000 MB; attachments can be at most 23 MB \(a PDF\)/) });
    await fs.rm(huge);
    for (const notFile of [files, '/dev/zero']) {
      const n = await run(['chat', '--once', 'look', '--attach', notFile]);
      expect(n).toMatchObject({ code: 2, stderr: expect.stringMatching(/Cannot read the file “(files|zero)” given with --attach/) });
    }
    expect(fake.requests.length).toBe(before);
  });
});

