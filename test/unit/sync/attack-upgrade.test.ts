/**
 * Attacks on the upgrade of a format-1 vault by its first change, now that
 * format 2 is the default (every existing user meets it on the first write
 * after updating): two processes of this computer (the CLI per call, an MCP
 * server, the app) that both opened the v1 vault before either wrote.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { FLOOR, PASS } from './two-computers';

let root: string;
let dir: string;
let state: string;
let recoveryKey: string;
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-upgrade-'));
  dir = path.join(root, 'vault');
  state = path.join(root, 'state');
  const made = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: state, format2: false });
  recoveryKey = made.recoveryKey;
  await made.vault.memory.writeFile('/memories/old.md', 'from format 1', { mode: 'create', source: 'user' });
  await made.vault.memory.writeFile('/memories/old.md', 'from format 1, twice', { mode: 'update', source: 'user' });
  await made.vault.internal.putJSON('settings', { theme: 'dark' });
  await made.vault.close();
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const V2 = (o: OpenOptions = {}): OpenOptions => ({ stateDir: state, format2: true, ackDelayMs: 0, ...o });
const upsert = { mode: 'upsert', source: 'cli' } as const;

async function open(o: OpenOptions): Promise<Vault> {
  const v = await Vault.open(dir, o);
  opened.push(v);
  await v.unlockWithRecoveryKey(recoveryKey);
  return v;
}

/** Everything a fresh process of the new build reads, after checking it verifies. */
async function reopened(): Promise<Record<string, string>> {
  const v = await open(V2());
  expect(await v.verify()).toMatchObject({ ok: true });
  const out: Record<string, string> = {};
  for (const e of v.memory.list('/memories', Infinity)) if (e.kind === 'file') out[e.path] = await v.memory.readFile(e.path);
  out.settings = JSON.stringify(await v.internal.getJSON('settings'));
  out.history = v.history('/memories/old.md').map((h) => h.version).join(',');
  await v.close();
  return out;
}

it('two per-call processes of this computer opened the v1 vault before either wrote: both first writes (and the ones after) are kept', async () => {
  const a = await open(V2({ lockPerCall: true }));
  const b = await open(V2({ lockPerCall: true }));
  await a.memory.writeFile('/memories/a1.md', 'a one', upsert);
  await b.memory.writeFile('/memories/b1.md', 'b one', upsert);
  await a.memory.writeFile('/memories/a2.md', 'a two', upsert);
  await b.internal.putJSON('settings', { theme: 'light' });
  await b.memory.writeFile('/memories/old.md', 'b over old', { mode: 'update', source: 'cli' });
  await a.memory.writeFile('/memories/a3.md', 'a three', upsert);
  await a.close();
  await b.close();
  expect(await reopened()).toEqual({
    '/memories/old.md': 'b over old',
    '/memories/a1.md': 'a one',
    '/memories/a2.md': 'a two',
    '/memories/a3.md': 'a three',
    '/memories/b1.md': 'b one',
    settings: JSON.stringify({ theme: 'light' }),
    history: '1,2',
  });
});

it('the app (held while unlocked) and a per-call CLI on the v1 vault: the CLI waits, then its write after the upgrade is kept', async () => {
  const cli = await open(V2({ lockPerCall: true, lockWaitMs: 200 }));
  const app = await open(V2({ releaseWhenLocked: true }));
  await app.memory.writeFile('/memories/app.md', 'from the app', upsert);
  await expect(cli.memory.writeFile('/memories/cli.md', 'from the cli', upsert)).rejects.toThrow();
  app.lock();
  await app.close();
  await cli.memory.writeFile('/memories/cli.md', 'from the cli', upsert);
  await cli.close();
  const r = await reopened();
  expect(r['/memories/app.md']).toBe('from the app');
  expect(r['/memories/cli.md']).toBe('from the cli');
});

it('an old build (format 1) running unlocked keeps a new-build per-call process out, and after it the new build upgrades with its writes kept', async () => {
  const cli = await open(V2({ lockPerCall: true, lockWaitMs: 200 }));
  const old = await open({ stateDir: state, format2: false, releaseWhenLocked: true });
  await expect(cli.memory.writeFile('/memories/cli.md', 'too early', upsert)).rejects.toThrow();
  await old.memory.writeFile('/memories/old-build.md', 'by the old build', upsert);
  await old.close();
  await cli.memory.writeFile('/memories/cli.md', 'from the cli', upsert);
  await cli.close();
  const r = await reopened();
  expect(r['/memories/old-build.md']).toBe('by the old build');
  expect(r['/memories/cli.md']).toBe('from the cli');
  expect(r['/memories/old.md']).toBe('from format 1, twice');
});

/** Every file under the vault folder with its bytes (the lock file's contents apart: a holder's record). */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of (await fs.readdir(dir, { recursive: true })) as string[]) {
    const p = path.join(dir, rel);
    const st = await fs.stat(p);
    if (st.isFile()) out.set(rel, `${st.mtimeMs} ${(await fs.readFile(p)).toString('base64')}`);
  }
  return out;
}

it('an old build (format 1) per-call process still open when the new build upgrades: its next read and write are refused with "Update Mnemo" and write nothing', async () => {
  const old = await open({ stateDir: state, format2: false, lockPerCall: true });
  expect(await old.memory.readFile('/memories/old.md')).toBe('from format 1, twice');
  const app = await open(V2({ releaseWhenLocked: true }));
  await app.memory.writeFile('/memories/app.md', 'from the app', upsert);
  await app.close();
  const before = await snapshot();
  await expect(old.memory.writeFile('/memories/old-build.md', 'by the old build', upsert)).rejects.toThrow(/Update Mnemo/);
  await expect(old.hold(async () => old.memory.readFile('/memories/old.md'))).rejects.toThrow(/Update Mnemo|locked/i);
  await old.close();
  const after = await snapshot();
  for (const [k, v] of before) if (!k.endsWith('.lock') && !k.includes('lock')) expect(after.get(k), k).toBe(v);
  expect([...after.keys()].filter((k) => !before.has(k))).toEqual([]);
  const r = await reopened();
  expect(r['/memories/app.md']).toBe('from the app');
  expect(r['/memories/old-build.md']).toBeUndefined();
});

const JUNK_ID = 'ab'.repeat(16);
/** Junk planted in the v1 folder before the update (a hostile sync peer, a stray tool): what each leaves on disk. */
const PLANTS: Record<string, (epoch: string) => Promise<void>> = {
  'a devices folder of junk names': async () => {
    await fs.mkdir(path.join(dir, 'devices', 'not-a-device'), { recursive: true });
    await fs.writeFile(path.join(dir, 'devices', 'not-a-device', 'x'), 'junk');
    await fs.writeFile(path.join(dir, 'devices', 'README'), 'junk');
  },
  'a device folder with junk segments and checkpoints': async (epoch) => {
    const at = path.join(dir, 'devices', JUNK_ID, epoch.slice(0, 8));
    await fs.mkdir(at, { recursive: true });
    await fs.writeFile(path.join(at, `j-${'0'.repeat(11)}1-deadbeef`), Buffer.alloc(300, 7));
    await fs.writeFile(path.join(at, `c-${'0'.repeat(11)}5-deadbeef`), Buffer.alloc(300, 9));
    await fs.writeFile(path.join(at, `p-${'0'.repeat(16)}`), Buffer.alloc(40, 1));
  },
  'a device id that is a file': async () => {
    await fs.mkdir(path.join(dir, 'devices'), { recursive: true });
    await fs.writeFile(path.join(dir, 'devices', JUNK_ID), 'junk');
  },
  'an epoch folder that is a file': async (epoch) => {
    await fs.mkdir(path.join(dir, 'devices', JUNK_ID), { recursive: true });
    await fs.writeFile(path.join(dir, 'devices', JUNK_ID, epoch.slice(0, 8)), 'junk');
  },
};

for (const [name, plant] of Object.entries(PLANTS)) {
  it(`junk planted under devices/ before the upgrade (${name}): the v1 vault still unlocks, reads, upgrades on its first write and reads after`, async () => {
    const { manifest } = JSON.parse(await fs.readFile(path.join(dir, 'vault.json'), 'utf8')) as { manifest: string };
    await plant(manifest);
    const v = await open(V2());
    expect(await v.memory.readFile('/memories/old.md')).toBe('from format 1, twice');
    await v.memory.writeFile('/memories/new.md', 'first write after the update', { mode: 'create', source: 'user' });
    await v.close();
    const w = await open(V2());
    const report = await w.verify();
    // verify may name the junk (not this computer's: damage or "still arriving"), never the v1 part or this computer's.
    for (const p of report.problems) expect(p, p).not.toMatch(/manifest|segments|blobs|memories/);
    const r = { '/memories/new.md': await w.memory.readFile('/memories/new.md'), '/memories/old.md': await w.memory.readFile('/memories/old.md') };
    console.log(`junk (${name}): verify ${JSON.stringify(report)}`);
    expect(r['/memories/new.md']).toBe('first write after the update');
    expect(r['/memories/old.md']).toBe('from format 1, twice');
  });
}

it('a file named devices planted in the v1 folder: the first write fails with nothing of the v1 part changed and no v1 build shut out; with the file gone it upgrades', async () => {
  await fs.writeFile(path.join(dir, 'devices'), 'junk');
  const v = await open(V2());
  const before = await snapshot();
  await expect(v.memory.writeFile('/memories/new.md', 'first write', { mode: 'create', source: 'user' })).rejects.toThrow(/Could not save/);
  expect(await v.memory.readFile('/memories/old.md')).toBe('from format 1, twice');
  await v.close();
  const after = await snapshot();
  for (const [k, val] of before) if (!k.includes('lock')) expect(after.get(k), k).toBe(val);
  // Still format 1: the old build opens it and writes.
  const old = await open({ stateDir: state, format2: false });
  await old.memory.writeFile('/memories/old-build.md', 'still writable by the old build', upsert);
  await old.close();
  await fs.rm(path.join(dir, 'devices'));
  const w = await open(V2());
  await w.memory.writeFile('/memories/new.md', 'first write', { mode: 'create', source: 'user' });
  await w.close();
  const r = await reopened();
  expect(r['/memories/new.md']).toBe('first write');
  expect(r['/memories/old-build.md']).toBe('still writable by the old build');
});

it('the old app opened (locked) before the new build upgraded the vault: its unlock is refused with "Update Mnemo", writes nothing and keeps no one out', async () => {
  const old = await Vault.open(dir, { stateDir: state, format2: false, releaseWhenLocked: true });
  opened.push(old);
  const cli = await open(V2({ lockPerCall: true }));
  await cli.memory.writeFile('/memories/cli.md', 'from the cli', upsert);
  await cli.close();
  const before = await snapshot();
  await expect(old.unlockWithRecoveryKey(recoveryKey)).rejects.toThrow(/Update Mnemo/);
  const after = await snapshot();
  for (const [k, v] of before) if (!k.includes('lock')) expect(after.get(k), k).toBe(v);
  expect([...after.keys()].filter((k) => !before.has(k) && !k.includes('lock'))).toEqual([]);
  // Still open: the new build writes on.
  const w = await open(V2({ lockWaitMs: 200 }));
  await w.memory.writeFile('/memories/after.md', 'after', upsert);
  await w.close();
  expect((await reopened())['/memories/after.md']).toBe('after');
});

it('a v1 vault restored from an older copy (rolled back) and upgraded by its first write: the alarm stays until accepted, then goes for good', async () => {
  const copy = path.join(root, 'older-copy');
  await fs.cp(dir, copy, { recursive: true });
  const w1 = await open({ stateDir: state, format2: false });
  for (let i = 0; i < 3; i++) await w1.memory.writeFile(`/memories/later${i}.md`, `later ${i}`, upsert);
  await w1.close();
  await fs.rm(dir, { recursive: true });
  await fs.cp(copy, dir, { recursive: true });
  const v = await Vault.open(dir, V2());
  opened.push(v);
  expect((await v.unlockWithRecoveryKey(recoveryKey)).rolledBack).toBe(true);
  await v.memory.writeFile('/memories/first.md', 'first write after the update', upsert);
  expect(v.isRolledBack()).toBe(true);
  await v.close();
  const again = await Vault.open(dir, V2());
  opened.push(again);
  expect((await again.unlockWithRecoveryKey(recoveryKey)).rolledBack).toBe(true);
  await again.acceptRollback();
  expect(again.isRolledBack()).toBe(false);
  await again.memory.writeFile('/memories/second.md', 'second', upsert);
  await again.close();
  const last = await Vault.open(dir, V2());
  opened.push(last);
  expect((await last.unlockWithRecoveryKey(recoveryKey)).rolledBack).toBe(false);
  expect(await last.memory.readFile('/memories/first.md')).toBe('first write after the update');
  expect(await last.verify()).toEqual({ ok: true, problems: [] });
});
