/**
 * The attachment calls through the real handler table and dispatch (the
 * contract's zod schemas included): picked, dropped and pasted files held in
 * main, sent with their message, read back for thumbnails, forgotten on lock.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachmentBlocks } from '../../fake-anthropic/server';
import { gif, png, utf8 } from '../../fixtures/attachments/make';
import { attachmentRig, b64, value } from './attachment-rig';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const app = (picked: string[] = []) => attachmentRig(cleanup, { prefix: 'mnemo-attach-', pickFiles: async () => picked });

describe('attachments over IPC', () => {
  it('a pasted image is held in main, sent with the message, then readable for its thumbnail and no longer pending', async () => {
    const a = await app();
    const image = png(6, 4);
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'Screenshot.png', data: b64(image) })) as { id: string };
    expect(ref).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), name: 'Screenshot.png', mediaType: 'image/png', bytes: image.length });
    await a.sendTurn(a.conv.id, 'What is this?', [ref.id], 'A small picture.');
    expect(attachmentBlocks(a.fake.requests[0]!)).toHaveLength(1);
    expect(value(await a.call('chatAttachmentGet', { conversationId: a.conv.id, attachmentId: ref.id }))).toEqual({ mediaType: 'image/png', data: b64(image) });
    const conv = value(await a.call('chatGet', { id: a.conv.id })) as { transcript: Array<{ attachments?: unknown[] }> };
    expect(conv.transcript[0]!.attachments).toEqual([ref]);
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
  });

  it('picked files come through main’s dialog; refused ones come back as messages naming them', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-pick-'));
    cleanup.push(() => fs.rm(dir, { recursive: true, force: true }));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'plain words');
    await fs.writeFile(path.join(dir, 'page.png'), '<html><script>x()</script></html>');
    await fs.writeFile(path.join(dir, 'bomb.gif'), gif(60000, 60000));
    const a = await app([path.join(dir, 'notes.txt'), path.join(dir, 'page.png'), path.join(dir, 'bomb.gif'), path.join(dir, 'gone.pdf')]);
    const r = value(await a.call('chatAttachPick', { id: a.conv.id })) as { added: Array<{ name: string }>; refused: string[] };
    expect(r.added.map((x) => x.name)).toEqual(['notes.txt']);
    expect(r.refused).toEqual([
      expect.stringMatching(/^“page\.png” is HTML or SVG markup/),
      expect.stringMatching(/^“bomb\.gif” is 60000×60000 pixels/),
      '“gone.pdf” could not be read. Check that it is a file you can open.',
    ]);
    expect(JSON.stringify(r)).not.toContain(dir);
  });

  it('refuses a 50 MB drop at the boundary, and zero bytes and markup with clear messages', async () => {
    const a = await app();
    const huge = await a.call('chatAttachData', { id: a.conv.id, name: 'huge.bin', data: 'A'.repeat(Math.ceil(50_000_000 / 3) * 4) });
    expect(huge).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    expect(await a.call('chatAttachData', { id: a.conv.id, name: 'empty.txt', data: '' })).toEqual({ ok: false, error: { code: 'INVALID', message: '“empty.txt” is empty, so there is nothing to attach.', key: 'errors:attachment.empty', params: { name: 'empty.txt' } } });
    expect(await a.call('chatAttachData', { id: a.conv.id, name: '../../etc/passwd\u202E', data: b64(utf8('<svg onload=x()>')) })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^“passwd” is HTML or SVG markup/) } });
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
  });

  it('holds at most 100 per message and forgets held files at lock, overwriting them', async () => {
    const a = await app();
    for (let i = 0; i < 100; i++) value(await a.call('chatAttachData', { id: a.conv.id, name: `i${i}.png`, data: b64(png(1, 1)) }));
    expect(await a.call('chatAttachData', { id: a.conv.id, name: 'i100.png', data: b64(png(1, 1)) })).toMatchObject({ ok: false, error: { message: '“i100.png” was not added: one message can carry at most 100 attachments. Send these first.' } });
    const held = a.session.attachments.all(a.conv.id)[0]!.data;
    await a.call('vaultLock');
    expect(held.every((x) => x === 0)).toBe(true);
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
  });

  it('an image alone can be sent without words; a message with neither words nor files is refused at the boundary', async () => {
    const a = await app();
    expect(await a.call('chatSend', { id: a.conv.id, text: '  ' })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'chart.png', data: b64(png(6, 4)) })) as { id: string };
    await a.sendTurn(a.conv.id, '', [ref.id], 'A chart.');
    expect(attachmentBlocks(a.fake.requests[0]!)).toHaveLength(1);
    expect(value(await a.call('chatGet', { id: a.conv.id }))).toMatchObject({ title: 'chart.png', transcript: [{ role: 'user', text: '' }, { role: 'assistant' }] });
  });

  it('the context meter of a temporary chat counts its attachments as sent, not as missing', async () => {
    const a = await app();
    const temp = value(await a.call('chatCreate', { temporary: true })) as { id: string };
    const ref = value(await a.call('chatAttachData', { id: temp.id, name: 'Screenshot.png', data: b64(png(6, 4)) })) as { id: string };
    await a.sendTurn(temp.id, 'What is this?', [ref.id], 'A small picture.');
    value(await a.call('chatContext', { id: temp.id }));
    const counted = JSON.stringify(a.fake.extra.countRequests.at(-1));
    expect(counted).toContain('"type":"image"');
    expect(counted).not.toContain('missing from the vault');
  });

  it('a message whose attachment is no longer held is refused, and a dropped one is let go', async () => {
    const a = await app();
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'a.txt', data: b64(utf8('x')) })) as { id: string };
    value(await a.call('chatAttachDrop', { id: a.conv.id, attachmentIds: [ref.id] }));
    expect(await a.call('chatSend', { id: a.conv.id, text: 'hi', attachments: [ref.id] })).toMatchObject({ ok: false, error: { code: 'INVALID', message: expect.stringMatching(/no longer waiting to be sent/) } });
    expect(a.fake.requests).toHaveLength(0);
  });

  it('“Edit last message” gives the attachments back with the words, and sending again sends them once', async () => {
    const a = await app();
    const image = png(5, 5);
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'shot.png', data: b64(image) })) as { id: string };
    await a.sendTurn(a.conv.id, 'What is it?', [ref.id], 'first answer');
    const back = value(await a.call('chatRewind', { id: a.conv.id })) as { text: string; attachments?: unknown[] };
    expect(back).toEqual({ text: 'What is it?', attachments: [{ id: ref.id, name: 'shot.png', mediaType: 'image/png', bytes: image.length }] });
    await a.sendTurn(a.conv.id, 'What is it, really?', [ref.id], 'second answer');
    const second = a.fake.requests[1]!;
    expect(second.body.messages).toHaveLength(1);
    expect(attachmentBlocks(second).map((b) => b.source.data)).toEqual([b64(image)]);
    expect(value(await a.call('chatAttachmentGet', { conversationId: a.conv.id, attachmentId: ref.id }))).toEqual({ mediaType: 'image/png', data: b64(image) });
  });
});
