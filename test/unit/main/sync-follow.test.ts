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
import { cloneOver } from '../sync/two-computers';

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
  await vi.waitFor(() => expect(app.emitted).toContainEqual({ event: 'vaultLocked', payload: { reason: 'header' } }), { timeout: 10_000 });
  expect(app.session.isUnlocked()).toBe(false);
  // The unlock says what is wrong.
  expect(await app.refused('vaultUnlock', { passphrase: PASS })).toBe('DAMAGED');
});

it('a fork found while following (another copy of this computer wrote under its id) is told to the window at once, not at the next unlock', async () => {
  const app = await handlerApp('mnemo-sync-fork-', { format2: true, follow: { settleMs: 20, pollMs: 100 } });
  const vault = app.session.unlocked();
  await vault.memory.writeFile('/memories/here.md', 'here', { mode: 'create', source: 'user' });
  await vault.ingest();
  // A copy of this computer (its state folder and its vault folder) writes under its id, and its segment arrives here.
  const cloneDir = path.join(app.dir, 'clone-vault');
  await fs.cp(app.session.dir, cloneDir, { recursive: true });
  await fs.cp(path.join(app.dir, 'state'), path.join(app.dir, 'clone-state'), { recursive: true });
  const clone = await Vault.open(cloneDir, { stateDir: path.join(app.dir, 'clone-state'), format2: true, ackDelayMs: 0 });
  try {
    await clone.unlock(PASS);
    await clone.memory.writeFile('/memories/from-clone.md', 'clone', { mode: 'create', source: 'user' });
  } finally {
    await clone.close();
  }
  await vault.memory.writeFile('/memories/here-again.md', 'again', { mode: 'create', source: 'user' });
  const me = (await vault.internal.device!(false))!;
  await cloneOver(cloneDir, app.session.dir, me);
  await vi.waitFor(() => expect(app.emitted.find((e) => e.event === 'vaultSynced' && (e.payload as { notices?: string[] }).notices)).toBeDefined(), { timeout: 10_000 });
  const told = app.emitted.find((e) => e.event === 'vaultSynced' && (e.payload as { notices?: string[] }).notices)!.payload as { notices: string[]; noticeKeys: { key: string }[] };
  expect(told.noticeKeys.map((k) => k.key)).toContain('errors:notice.ownReplaced');
  expect(await vault.memory.readFile('/memories/here-again.md')).toBe('again');
  expect(await vault.memory.readFile('/memories/from-clone.md')).toBe('clone');
});

it('keys rotated on another computer lock the app with that reason; the same passphrase opens the new keys and what was written under them', async () => {
  const app = await handlerApp('mnemo-sync-rotate-', { format2: true, follow: { settleMs: 20, pollMs: 100 } });
  const vault = app.session.unlocked();
  await vault.memory.writeFile('/memories/here.md', 'here', { mode: 'create', source: 'user' });
  const other = await Vault.open(app.session.dir, { stateDir: path.join(app.dir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  try {
    await other.unlock(PASS);
    await other.rotateKeys(PASS);
    await other.memory.writeFile('/memories/after-rotation.md', 'new keys', { mode: 'create', source: 'user' });
  } finally {
    await other.close();
  }
  await vi.waitFor(() => expect(app.emitted).toContainEqual({ event: 'vaultLocked', payload: { reason: 'header' } }), { timeout: 10_000 });
  expect(app.session.isUnlocked()).toBe(false);
  expect(await app.refused('vaultUnlock', { passphrase: PASS })).toBe('OK');
  const again = app.session.unlocked();
  expect(await again.memory.readFile('/memories/after-rotation.md')).toBe('new keys');
  expect(await again.memory.readFile('/memories/here.md')).toBe('here');
  expect(await again.verify()).toMatchObject({ ok: true });
});
