/**
 * The app following a vault another computer writes (format 2): the session's watcher takes in what arrives and tells
 * the window (memoryChanged, vaultSynced); a vault.json it cannot follow (not ours) runs the app's own lock, which the
 * window hears of (vaultLocked), instead of leaving it unlocked on screen over a locked vault.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { parseHeader, serializeHeader } from '../../../electron/core/vault/header';
import { Vault } from '../../../electron/core/vault/vault';
import { closeApps, handlerApp, PASS } from './handler-app';

afterEach(closeApps);

it('what another computer writes reaches the window; a forged vault.json locks the app as a lock does, and the window is told', async () => {
  const app = await handlerApp('mnemo-sync-follow-', { format2: true, follow: { settleMs: 20, pollMs: 100 } });
  const vault = app.session.unlocked();
  // A first change makes the vault multi-device on disk (a format-1 vault keeps its in-folder lock until then).
  await vault.setHistoryDepth(25);
  const other = await Vault.open(app.session.dir, { stateDir: path.join(app.dir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  try {
    await other.unlock(PASS);
    await other.memory.writeFile('/memories/from-laptop.md', 'hello', { mode: 'create', source: 'user' });
    await vi.waitFor(() => expect(app.emitted).toContainEqual({ event: 'memoryChanged', payload: { op: 'write', path: '/memories/from-laptop.md', version: 1, source: 'system' } }), { timeout: 10_000 });
    expect(app.emitted.map((e) => e.event)).toContain('vaultSynced');
  } finally {
    await other.close();
  }
  // Someone without the key rewrites vault.json (a higher counter, its MAC left as it was: not ours).
  const file = path.join(app.session.dir, 'vault.json');
  const h = parseHeader(await fs.readFile(file), 2);
  await fs.writeFile(file, serializeHeader({ ...h, counter: (h.counter ?? 1) + 3 }));
  await vi.waitFor(() => expect(app.emitted).toContainEqual({ event: 'vaultLocked', payload: { reason: 'system' } }), { timeout: 10_000 });
  expect(app.session.isUnlocked()).toBe(false);
  // The unlock says what is wrong.
  expect(await app.refused('vaultUnlock', { passphrase: PASS })).toBe('DAMAGED');
});
