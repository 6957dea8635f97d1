/**
 * A temporary chat keeps nothing once locked, its unsent message included
 * (session.ts `lock`). The window hands its drafts to main debounced (400 ms,
 * renderer/lib/drafts.ts), so one can arrive while a lock main started (idle,
 * system) is still under way: waiting for a reply to save, or for the channel
 * to stop. That draft must not be written into the vault either.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fresh() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-drafts-lock-'));
  dirs.push(dir);
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  return made;
}

it('a temporary chat’s message or edit handed to main while an idle lock is under way is not kept in the vault', async () => {
  const { handlers, session } = await fresh();
  const made = await dispatch(handlers, 'chatCreate', [{ temporary: true }]);
  const temporary = (made as { value: { id: string } }).value.id;
  const locking = session.lock('idle');
  // The window's debounced drafts, arriving after the lock began and before the keys went.
  expect((await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { conversationId: temporary, text: 'temporary words 7731' } }])).ok).toBe(true);
  expect((await dispatch(handlers, 'draftsPut', [{ kind: 'edit', draft: [{ conversationId: temporary, entry: 0, text: 'temporary edit 7732' }] }])).ok).toBe(true);
  await locking;
  expect(session.drafts.holdsAny()).toBe(false);
  await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
  expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
  await session.close();
});

// A guard (it passes before the fix too: the quit's window is short here); the quit path has the same fix.
it('the same at quit: a temporary chat’s message handed over while quitting is not kept', async () => {
  const { handlers, session } = await fresh();
  const made = await dispatch(handlers, 'chatCreate', [{ temporary: true }]);
  const temporary = (made as { value: { id: string } }).value.id;
  let closed = false;
  const closing = session.close().then(() => (closed = true));
  // Handed over again at each turn of the event loop until the vault is closed, as a window typing on would.
  for (let i = 0; !closed && i < 200; i++) {
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { conversationId: temporary, text: `temporary words 7733 ${i}` } }]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await closing;
  const again = createHandlers({ userDataDir: dirs.at(-1)!, stateDir: path.join(dirs.at(-1)!, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(again.handlers, 'vaultUnlock', [{ passphrase: PASS }])).ok).toBe(true);
  expect(await dispatch(again.handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
  await again.session.close();
});
