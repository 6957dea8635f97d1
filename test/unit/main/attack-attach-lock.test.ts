/**
 * Files added to a message not yet sent stay in main and are forgotten on
 * lock (session.ts). A file dropped or pasted while a lock main started is
 * still under way (waiting for a reply to save, the channel to stop, the
 * drafts to be written) must be forgotten too, not held past the lock.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { png } from '../../fixtures/attachments/make';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

it('a file attached while an idle lock is under way is not held once locked, in a stored or a temporary chat', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attach-lock-'));
  dirs.push(dir);
  const { handlers, session } = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  const ids: string[] = [];
  for (const temporary of [false, true]) ids.push(((await dispatch(handlers, 'chatCreate', [{ temporary }])) as { value: { id: string } }).value.id);
  const data = Buffer.from(png(4, 4, [9, 9, 9])).toString('base64');
  // The lock waits a while before the keys go, as it does for the channel's calls in flight (up to 10 s) or a reply.
  session.watch({ unlocked: () => undefined, locking: () => new Promise((resolve) => setTimeout(resolve, 300)) });
  let locked = false;
  const locking = session.lock('idle').then(() => (locked = true));
  // The window's drop, at each turn of the event loop until the lock is done.
  for (let i = 0; !locked && i < 200; i++) {
    for (const id of ids) await dispatch(handlers, 'chatAttachData', [{ id, name: `shot-${i}.png`, data }]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await locking;
  for (const id of ids) expect(session.attachments.all(id)).toEqual([]);
  await session.close();
});
