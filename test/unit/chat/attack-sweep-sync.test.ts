/**
 * Stored versions nothing names are swept (conversations.ts sweepTails: what
 * a crash between a version's writes leaves). On a vault two computers share
 * (format 2) another computer's version may arrive before the head that names
 * it, as its other values may (`sweepable`): it must not be swept as one.
 * Two computers here are two state folders on copies of one vault folder,
 * their `devices/` folders copied across as a sync engine would (as in
 * test/unit/sync/keys2.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import { twoComputers } from '../sync/two-computers';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-sweep2-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});



it('a version made on the other computer, synced before its head, is not swept, and shows once the head arrives', async () => {
  const { va, vb, sync } = await twoComputers(root);
  const c = await new Conversations(va).create();
  const answered: StoredConversation = {
    ...c,
    messages: [
      { role: 'user', content: 'q0' },
      { role: 'assistant', content: 'a0' },
    ],
    transcript: [
      { role: 'user', text: 'q0', at: 1 },
      { role: 'assistant', text: 'a0', at: 2, tools: [] },
    ],
    turnStarts: [0],
  };
  await new Conversations(va).update(c.id, () => answered);
  await sync();
  // B regenerates the reply: its first write (the version set aside) reaches A before its second (the head).
  const put = vb.internal.putJSON.bind(vb.internal);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atHead = new Promise<void>((resolve) => (reached = resolve));
  vi.spyOn(vb.internal, 'putJSON').mockImplementation(async (key, value) => {
    if (key === `conversations/${c.id}`) {
      reached();
      await held;
    }
    return put(key, value);
  });
  const branching = new Conversations(vb).branch(c.id, 0, 'regenerate');
  await atHead;
  await sync();
  // A lists its conversations meanwhile (its first list since unlocking sweeps).
  await new Conversations(va).list();
  release();
  await branching;
  vi.restoreAllMocks();
  await sync();
  // On A, the version B set aside is there to show.
  const shown = await new Conversations(va).showVersion(c.id, 0, 0);
  expect(shown.transcript.map((e) => e.text)).toEqual(['q0', 'a0']);
  await va.close();
  await vb.close();
});
