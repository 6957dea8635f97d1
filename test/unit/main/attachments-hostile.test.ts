/**
 * The attachment calls as a compromised window would make them, and racing a
 * lock or a closing chat, through the real handler table and dispatch.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachmentBlocks, reply, text } from '../../fake-anthropic/server';
import { png, utf8 } from '../../fixtures/attachments/make';
import { type ChatEvent, PASS, attachmentRig, b64, value } from './attachment-rig';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of cleanup.splice(0)) await f();
});

/** The app's handlers; the open dialog answers when the test says (`answerPick`). */
async function app() {
  let answer: ((files: string[]) => void) | undefined;
  let picks = 0;
  const events: ChatEvent[] = [];
  const rig = await attachmentRig(cleanup, {
    prefix: 'mnemo-attach-hostile-',
    pickFiles: () => {
      picks++;
      return new Promise<string[]>((resolve) => (answer = resolve));
    },
    onEvent: (event) => events.push(event),
  });
  const dialogOpen = async () => {
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    const a = answer;
    answer = undefined;
    return a;
  };
  return { ...rig, dialogOpen, events, picks: () => picks };
}

async function tempFile(name: string, bytes: Uint8Array): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-pick-'));
  cleanup.push(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, name), bytes);
  return path.join(dir, name);
}

describe('a lock or a close while a file dialog is open', () => {
  it('holds none of the picked files once the vault was locked while the dialog was open, and says so', async () => {
    const a = await app();
    const file = await tempFile('secret.txt', utf8('words picked before the lock'));
    const picking = a.call('chatAttachPick', { id: a.conv.id });
    const answer = await a.dialogOpen();
    await a.call('vaultLock');
    answer([file]);
    const r = await picking;
    expect(r).toMatchObject({ ok: false, error: { code: 'LOCKED' } });
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
    value(await a.call('vaultUnlock', { passphrase: PASS }));
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
  });

  it('holds none of the picked files for a temporary chat closed while the dialog was open', async () => {
    const a = await app();
    const temp = value(await a.call('chatCreate', { temporary: true })) as { id: string };
    const file = await tempFile('note.txt', utf8('for a chat that is gone'));
    const picking = a.call('chatAttachPick', { id: temp.id });
    const answer = await a.dialogOpen();
    value(await a.call('chatDelete', { id: temp.id }));
    answer([file]);
    expect(await picking).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(a.session.attachments.all(temp.id)).toEqual([]);
  });

  it('opens no dialog for a conversation that does not exist', async () => {
    const a = await app();
    expect(await a.call('chatAttachPick', { id: 'ab'.repeat(8) })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(a.picks()).toBe(0);
  });
});

describe('attachment calls from a compromised window', () => {
  it('cannot read another conversation’s attachment, nor use ids that are paths', async () => {
    const a = await app();
    const other = value(await a.call('chatCreate')) as { id: string };
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'mine.txt', data: b64(utf8('private')) })) as { id: string };
    await a.sendTurn(a.conv.id, 'keep it', [ref.id], 'ok');
    expect(await a.call('chatAttachmentGet', { conversationId: other.id, attachmentId: ref.id })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    for (const attachmentId of [`../${a.conv.id}/${ref.id}`, `${a.conv.id}/${ref.id}`, '..', `${ref.id}/`]) {
      expect(await a.call('chatAttachmentGet', { conversationId: other.id, attachmentId })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    expect(await a.call('chatAttachmentGet', { conversationId: `${other.id}/..`, attachmentId: ref.id })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });

  it('a closed temporary chat’s attachments are gone for good', async () => {
    const a = await app();
    const temp = value(await a.call('chatCreate', { temporary: true })) as { id: string };
    const ref = value(await a.call('chatAttachData', { id: temp.id, name: 'a.png', data: b64(png(3, 3)) })) as { id: string };
    await a.sendTurn(temp.id, 'look', [ref.id], 'ok');
    value(await a.call('chatDelete', { id: temp.id }));
    expect(await a.call('chatAttachmentGet', { conversationId: temp.id, attachmentId: ref.id })).toMatchObject({ ok: false });
  });

  it('refuses base64 with whitespace or junk and non-files at the boundary, and logs no file name or content', async () => {
    const a = await app();
    const logged: unknown[] = [];
    for (const m of ['log', 'error', 'warn', 'info', 'debug'] as const) vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logged.push(args));
    const data = b64(utf8('hello there'));
    for (const bad of [`${data.slice(0, 4)}\n${data.slice(4)}`, ` ${data}`, `${data}%%`, 'ab=cd']) {
      expect(await a.call('chatAttachData', { id: a.conv.id, name: 'n.txt', data: bad })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    // Decodable but not a file Claude reads, or nothing at all.
    expect(await a.call('chatAttachData', { id: a.conv.id, name: 'x.bin', data: 'AAAA' })).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    expect(await a.call('chatAttachData', { id: a.conv.id, name: 'x.txt', data: 'A' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/empty/) } });
    // Names with folders, NUL and bidi overrides come back cleaned.
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: '../../etc/\u0000pass\u202Egpj.txt', data })) as { name: string };
    expect(ref.name).toBe('passgpj.txt');
    expect(JSON.stringify(logged)).not.toMatch(/pass|gpj|hello/);
  });

  it('10,000 quick calls hold at most one message’s worth per conversation', async () => {
    const a = await app();
    const data = b64(utf8('tiny'));
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      const r = await a.call('chatAttachData', { id: a.conv.id, name: `f${i}.txt`, data });
      if (!r.ok) refused++;
    }
    expect(a.session.attachments.all(a.conv.id)).toHaveLength(100);
    expect(refused).toBe(9_900);
  });
});

describe('a lock while a message with attachments is being answered', () => {
  it('leaves the conversation opening with every named attachment present and none unnamed, and never claims a lost exchange was saved', async () => {
    const a = await app();
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'shot.png', data: b64(png(7, 7)) })) as { id: string };
    let locking: Promise<unknown> | undefined;
    a.fake.script({
      ...reply(text('A long answer that is cut short by the lock.')),
      chunk: 2,
      onEvent: (name) => {
        if (name === 'content_block_delta' && !locking) locking = a.call('vaultLock');
      },
    });
    const finished = a.turnDone();
    value(await a.call('chatSend', { id: a.conv.id, text: 'What is it?', attachments: [ref.id] }));
    await finished;
    await locking;
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
    value(await a.call('vaultUnlock', { passphrase: PASS }));
    const conv = value(await a.call('chatGet', { id: a.conv.id })) as { transcript: Array<{ role: string; attachments?: Array<{ id: string }> }> };
    const named = conv.transcript.flatMap((e) => e.attachments ?? []).map((x) => x.id);
    const stored = a.session.unlocked().internal.keys(`attachments/${a.conv.id}/`).map((k) => k.split('/')[2]);
    expect(stored).toEqual(named);
    for (const id of named) expect(await a.call('chatAttachmentGet', { conversationId: a.conv.id, attachmentId: id })).toMatchObject({ ok: true });
    const said = a.events.filter((e) => e.type === 'error').map((e) => e.message ?? '');
    if (conv.transcript.length === 0) expect(said.join(' ')).not.toMatch(/is saved/);
    expect(said.join(' ')).not.toMatch(/failed unexpectedly/);
  });
});

describe('racing sends', () => {
  it('two sends at once with the same pending file: one goes, the other is refused, and the file is stored once', async () => {
    const a = await app();
    const image = png(9, 9);
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'twice.png', data: b64(image) })) as { id: string };
    a.fake.script(reply(text('once')));
    const finished = a.turnDone();
    const [one, two] = await Promise.all([
      a.call('chatSend', { id: a.conv.id, text: 'first', attachments: [ref.id] }),
      a.call('chatSend', { id: a.conv.id, text: 'second', attachments: [ref.id] }),
    ]);
    await finished;
    expect([one.ok, two.ok].sort()).toEqual([false, true]);
    expect(a.fake.requests).toHaveLength(1);
    const conv = value(await a.call('chatGet', { id: a.conv.id })) as { transcript: Array<{ attachments?: unknown[] }> };
    expect(conv.transcript.flatMap((e) => e.attachments ?? [])).toHaveLength(1);
    expect(a.session.unlocked().internal.keys(`attachments/${a.conv.id}/`)).toEqual([`attachments/${a.conv.id}/${ref.id}`]);
  });

  it('a send naming one file many times sends and stores it once', async () => {
    const a = await app();
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'one.png', data: b64(png(9, 9)) })) as { id: string };
    a.fake.script(reply(text('One picture.')));
    const finished = a.turnDone();
    value(await a.call('chatSend', { id: a.conv.id, text: 'how many?', attachments: Array.from({ length: 50 }, () => ref.id) }));
    await finished;
    expect(attachmentBlocks(a.fake.requests[0]!)).toHaveLength(1);
    const conv = value(await a.call('chatGet', { id: a.conv.id })) as { transcript: Array<{ attachments?: unknown[] }> };
    expect(conv.transcript.flatMap((e) => e.attachments ?? [])).toHaveLength(1);
  });

  it('removing a chip while its message is being answered changes nothing that is stored', async () => {
    const a = await app();
    const image = png(9, 9);
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'keep.png', data: b64(image) })) as { id: string };
    let dropped: Promise<unknown> | undefined;
    a.fake.script({
      ...reply(text('Seen.')),
      onEvent: (name) => {
        if (name === 'message_start' && !dropped) dropped = a.call('chatAttachDrop', { id: a.conv.id, attachmentIds: [ref.id] });
      },
    });
    const finished = a.turnDone();
    value(await a.call('chatSend', { id: a.conv.id, text: 'look', attachments: [ref.id] }));
    await finished;
    await dropped;
    expect(value(await a.call('chatAttachmentGet', { conversationId: a.conv.id, attachmentId: ref.id }))).toEqual({ mediaType: 'image/png', data: b64(image) });
  });
});

