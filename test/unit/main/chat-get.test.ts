/** A long conversation reaches the window in the part it shows: the newest entries, with a count of the rest and the whole cost. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { createHandlers, dispatch } from '../../../electron/main/handlers';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

it('chatGet with a tail sends only the last entries, says how many came before, and costs the whole conversation', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-chatget-'));
  dirs.push(dir);
  const a = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(a.handlers, 'vaultCreate', [{ passphrase: 'amber-kettle-orbit-sonnet-42' }])).ok).toBe(true);
  const conversations = new Conversations(a.session.unlocked());
  const c = await conversations.create();
  const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUSD: 0.25, model: 'm' };
  const transcript: TranscriptEntry[] = Array.from({ length: 10 }, (_, i): TranscriptEntry[] => [
    { role: 'user', text: `q${i}`, at: 2 * i },
    { role: 'assistant', text: `a${i}`, at: 2 * i + 1, tools: [], usage },
  ]).flat();
  await conversations.save({ ...c, transcript });

  const part = await dispatch(a.handlers, 'chatGet', [{ id: c.id, tail: 3 }]);
  expect(part).toMatchObject({ ok: true, value: { earlier: 17, costUSD: 2.5, transcript: [{ text: 'a8' }, { text: 'q9' }, { text: 'a9' }] } });
  expect((part as { value: { transcript: unknown[] } }).value.transcript).toHaveLength(3);
  expect(await dispatch(a.handlers, 'chatGet', [{ id: c.id, tail: 50 }])).toMatchObject({ ok: true, value: { earlier: 0 } });
  const whole = await dispatch(a.handlers, 'chatGet', [{ id: c.id }]);
  expect((whole as { value: { transcript: unknown[]; earlier: number } }).value).toMatchObject({ earlier: 0 });
  expect((whole as { value: { transcript: unknown[] } }).value.transcript).toHaveLength(20);
  // A tail that is not a positive whole number is refused.
  for (const tail of [0, -1, 1.5, '3']) expect(await dispatch(a.handlers, 'chatGet', [{ id: c.id, tail }])).toMatchObject({ ok: false });
  await a.session.close();
});
