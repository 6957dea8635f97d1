/**
 * The format-2 store on one and two devices: what a device writes is on disk
 * when the call returns, opens again as it was, and reaches another device's
 * view once its files are there and confirmed (docs/sync-design.md §2.5, §4).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';

const PASS = 'correct horse battery staple';
const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-store2-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const opts = (state: string) => ({ stateDir: path.join(root, state), format2: true, ackDelayMs: 0 });

it('a format-2 vault keeps every write across a reopen, with vids and devices in its history', async () => {
  const dir = path.join(root, 'vault');
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts('a') });
  await vault.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'user' });
  await vault.memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'user' });
  await vault.memory.writeFile('/memories/d/b.md', 'beta', { mode: 'create', source: 'user' });
  await vault.memory.rename('/memories/d/b.md', '/memories/e/b.md', 'user');
  await vault.internal.putJSON('settings', { theme: 'dark' });
  expect(vault.memory.stat('/memories/a.md')).toMatchObject({ version: 2, size: 3 });
  expect(JSON.parse(await fs.readFile(path.join(dir, 'vault.json'), 'utf8'))).toMatchObject({ version: 2 });
  await vault.close();
  const again = await Vault.open(dir, opts('a'));
  await again.unlockWithRecoveryKey(recoveryKey);
  expect(await again.memory.readFile('/memories/a.md')).toBe('two');
  expect(await again.memory.readFile('/memories/e/b.md')).toBe('beta');
  expect(await again.internal.getJSON('settings')).toEqual({ theme: 'dark' });
  const h = again.history('/memories/a.md');
  expect(h).toMatchObject([{ version: 1 }]);
  expect(h[0]!.vid).toMatch(/^[0-9a-f]{32}:\d+$/);
  expect(await again.readVersion('/memories/a.md', 1)).toBe('one');
  expect(await again.verify()).toEqual({ ok: true, problems: [] });
  await again.close();
  // The format-1 build refuses it, as any build refuses a newer format.
  await expect(Vault.open(dir, { stateDir: path.join(root, 'a'), format2: false })).rejects.toMatchObject({ code: 'BAD_HEADER' });
});

it('two devices on copies of one folder see each other once the files are copied', async () => {
  const a = path.join(root, 'va');
  const b = path.join(root, 'vb');
  const { vault: va, recoveryKey } = await Vault.create(a, PASS, { kdf: FLOOR, ...opts('a') });
  await va.memory.writeFile('/memories/shared.md', 'l1\nl2\nl3\nl4\n', { mode: 'create', source: 'user' });
  await fs.cp(a, b, { recursive: true });
  const vb = await Vault.open(b, opts('b'));
  await vb.unlockWithRecoveryKey(recoveryKey);
  expect(await vb.memory.readFile('/memories/shared.md')).toBe('l1\nl2\nl3\nl4\n');
  await va.memory.writeFile('/memories/shared.md', 'l1 A\nl2\nl3\nl4\n', { mode: 'update', source: 'user' });
  await vb.memory.writeFile('/memories/shared.md', 'l1\nl2\nl3\nl4 B\n', { mode: 'update', source: 'user' });
  await vb.memory.writeFile('/memories/b.md', 'from b', { mode: 'create', source: 'user' });
  const copyDevices = async (from: string, to: string) => fs.cp(path.join(from, 'devices'), path.join(to, 'devices'), { recursive: true, force: true });
  await copyDevices(a, b);
  await copyDevices(b, a);
  await va.ingest();
  await vb.ingest();
  for (const v of [va, vb]) {
    expect(await v.memory.readFile('/memories/shared.md')).toBe('l1 A\nl2\nl3\nl4 B\n');
    expect(await v.memory.readFile('/memories/b.md')).toBe('from b');
    expect(await v.verify()).toMatchObject({ ok: true });
  }
  await va.close();
  await vb.close();
});

it('two processes of one computer holding the lock per call take turns on its one journal (catch-up is an ingest)', async () => {
  const dir = path.join(root, 'vault');
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts('a') });
  await vault.memory.writeFile('/memories/start.md', 'start', { mode: 'create', source: 'user' });
  await vault.close();
  const per = { ...opts('a'), lockPerCall: true, journalLimit: 3 };
  const p1 = await Vault.open(dir, per);
  const p2 = await Vault.open(dir, per);
  await p1.unlockWithRecoveryKey(recoveryKey);
  await p2.unlockWithRecoveryKey(recoveryKey);
  for (let i = 0; i < 12; i++) {
    const [w, r] = i % 2 ? [p1, p2] : [p2, p1];
    await w.memory.writeFile('/memories/turns.md', `turn ${i}`, { mode: 'upsert', source: 'cli' });
    await w.memory.writeFile(`/memories/p${i % 2}.md`, `from ${i}`, { mode: 'upsert', source: 'cli' });
    // The other process reads what this one wrote: its hold caught up with the journal and the checkpoints made meanwhile.
    expect(await r.hold(() => r.memory.readFile('/memories/turns.md'))).toBe(`turn ${i}`);
  }
  expect(await p1.hold(async () => p1.history('/memories/turns.md').length)).toBe(11);
  await p1.close();
  await p2.close();
  const again = await Vault.open(dir, opts('a'));
  await again.unlockWithRecoveryKey(recoveryKey);
  expect(await again.memory.readFile('/memories/turns.md')).toBe('turn 11');
  expect(await again.memory.readFile('/memories/p1.md')).toBe('from 11');
  expect(again.history('/memories/turns.md')).toHaveLength(11);
  expect(await again.verify()).toEqual({ ok: true, problems: [] });
  await again.close();
});

it('sync-engine markers in the root, and another computer\'s temp files, are read past and never removed', async () => {
  const dir = path.join(root, 'vault');
  await fs.mkdir(dir);
  for (const m of ['.stfolder', '.DS_Store', 'desktop.ini']) await fs.writeFile(path.join(dir, m), 'marker');
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts('a') });
  await vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'user' });
  await vault.close();
  const other = path.join(dir, '.tmp-0123abcd-00112233');
  await fs.writeFile(other, 'another computer is writing this');
  const again = await Vault.open(dir, opts('a'));
  await again.unlockWithRecoveryKey(recoveryKey);
  expect(await again.verify()).toEqual({ ok: true, problems: [] });
  await again.memory.writeFile('/memories/a.md', 'b', { mode: 'update', source: 'user' });
  await again.close();
  for (const m of ['.stfolder', '.DS_Store', 'desktop.ini']) expect(await fs.readFile(path.join(dir, m), 'utf8')).toBe('marker');
  expect(await fs.readFile(other, 'utf8')).toBe('another computer is writing this');
});
