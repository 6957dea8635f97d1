/**
 * Attacks on 57cc635 on real vaults on disk (docs/sync-design.md §12.4): vault2.ts `announce2` at unlock, at ingest and
 * per call (a full disk, a read-only open, two processes of one computer), a computer restored from a backup of its
 * state folder, the bytes an offline computer holds back, and three computers changing settings, a project's name and a
 * conversation's title with offline periods and checkpoints in between. Pure cases in attack-announce.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { Vault } from '../../../electron/core/vault/vault';
import { fullDisk } from '../vault/helpers';
import { mirror, session, syncAll, type Computer } from './carry-vaults';
import { FLOOR, PASS } from './two-computers';
import { DEEP } from '../../deep';

/** Saves of the cost case: 500 under MNEMO_DEEP=1 (the measured figures below), a sample in `npm test`. */
const SAVES = DEEP ? 500 : 150;

let root: string;
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-announce-'));
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const opts = (state: string, more: Partial<OpenOptions> = {}): OpenOptions => ({ stateDir: path.join(root, state), format2: true, ackDelayMs: 0, journalLimit: 4, ...more });
let recovery = '';

/** The vault A made (format 2, one setting written), not yet copied. */
/** `v1`: made by a format-1 build (format 1 on disk, no computer known until the first change), opened in format 2. */
async function made(write = true, v1 = false): Promise<Computer> {
  const dir = path.join(root, 'v0');
  const m = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts('s0'), ...(v1 ? { format2: false } : {}) });
  recovery = m.recoveryKey;
  let v = m.vault;
  if (v1) {
    await v.close();
    v = await Vault.open(dir, opts('s0'));
    await v.unlockWithRecoveryKey(recovery);
  }
  if (write) await v.internal.putJSON('settings', { theme: 'light', fontSize: 12, lang: 'en' });
  opened.push(v);
  return { dir, v };
}
/** Computer `i` on a copy of `a`'s folder. */
async function join(a: Computer, i: number, more: Partial<OpenOptions> = {}): Promise<Computer> {
  const dir = path.join(root, `v${i}`);
  await fs.cp(a.dir, dir, { recursive: true });
  const v = await Vault.open(dir, opts(`s${i}`, more));
  await v.unlockWithRecoveryKey(recovery);
  opened.push(v);
  return { dir, v };
}
const devOf = async (c: Computer) => (await c.v.internal.device!(false))!;
/** Every file under `dir` with a hash of its bytes. */
async function image(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await fs.readdir(dir, { recursive: true })) as string[]) {
    const p = path.join(dir, rel);
    if ((await fs.stat(p)).isFile()) out[rel] = createHash('sha256').update(await fs.readFile(p)).digest('hex');
  }
  return out;
}
async function bytesUnder(dir: string): Promise<number> {
  let n = 0;
  for (const rel of (await fs.readdir(dir, { recursive: true }).catch(() => [])) as string[]) {
    const st = await fs.stat(path.join(dir, rel));
    if (st.isFile()) n += st.size;
  }
  return n;
}
for (const room of [0, 40, 200, 1000]) {
  it(`a full disk at unlock (${room} bytes left: the announcement cannot be written, whole or in part): the user gets in, reads everything, and once there is room writes, merges and verifies on both computers`, async () => {
    const a = await made();
    await a.v.internal.putJSON('projects/p1', { name: 'Alpha', created: 1 });
    // a's last changes confirmed (its ack), as a sync would find them.
    await a.v.ingest();
    const disk = fullDisk();
    disk.room.bytes = room;
    const b = await join(a, 1, { fs: disk.fs });
    expect(await b.v.internal.getJSON('settings')).toEqual({ theme: 'light', fontSize: 12, lang: 'en' });
    expect(await b.v.internal.getJSON('projects/p1')).toEqual({ name: 'Alpha', created: 1 });
    expect(await b.v.ingest()).toEqual([]);
    disk.room.bytes = Infinity;
    await b.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12, lang: 'en' });
    await a.v.internal.putJSON('projects/p1', { name: 'Beta', created: 1 });
    await syncAll([a, b]);
    expect(await a.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 12, lang: 'en' });
    expect(await b.v.internal.getJSON('projects/p1')).toEqual({ name: 'Beta', created: 1 });
    expect(session(a.v).store.state.devices.has(await devOf(b))).toBe(true);
    for (const x of [a, b]) expect(await x.v.verify()).toMatchObject({ ok: true });
  }, 30_000);
}

it('a read-only open of a vault other computers write to writes nothing in the vault folder (unlock, ingest, reads)', async () => {
  const a = await made();
  const b = await join(a, 1);
  await b.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12, lang: 'en' });
  await syncAll([a, b]);
  await a.v.close();
  opened.splice(opened.indexOf(a.v), 1);
  const dir = path.join(root, 'v9');
  await fs.cp(a.dir, dir, { recursive: true });
  const before = await image(dir);
  const v = await Vault.open(dir, opts('s9', { readOnly: true }));
  opened.push(v);
  await v.unlockWithRecoveryKey(recovery);
  expect(await v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 12, lang: 'en' });
  await v.ingest();
  await v.close();
  expect(await image(dir)).toEqual(before);
}, 30_000);

it('per call (CLI, MCP): two processes of one computer (one state folder) both unlock and call; the computer announces once, the other computer knows it, and all verify', async () => {
  const a = await made();
  const b1 = await join(a, 1, { lockPerCall: true });
  const b2dir = b1.dir;
  const b2v = await Vault.open(b2dir, opts('s1', { lockPerCall: true }));
  await b2v.unlockWithRecoveryKey(recovery);
  opened.push(b2v);
  const b2 = { dir: b2dir, v: b2v };
  expect(await b1.v.internal.getJSON('settings')).toMatchObject({ theme: 'light' });
  expect(await b2.v.internal.getJSON('settings')).toMatchObject({ theme: 'light' });
  await b2.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12, lang: 'en' });
  expect(await b1.v.internal.getJSON('settings')).toMatchObject({ theme: 'dark' });
  const me = await devOf(b1);
  expect(await devOf(b2)).toBe(me);
  await syncAll([a, b1]);
  const s = session(a.v).store.state;
  expect(s.devices.has(me)).toBe(true);
  // One name register value from b (not one per process or per call).
  expect([...(s.regs.get(`device-name:${me}`)?.keys() ?? [])].length).toBe(1);
  expect(await a.v.internal.getJSON('settings')).toMatchObject({ theme: 'dark' });
  for (const v of [a.v, b1.v, b2.v]) expect(await v.verify()).toMatchObject({ ok: true });
}, 30_000);

it('per call: a computer that first sees the others at a call (not at unlock) announces then, so the others wait for it before forgetting', async () => {
  const a = await made(false, true);
  // b opens a copy made before a wrote anything (nothing but the single-writer part: b says nothing at unlock); a then
  // writes, b sees a at its next call.
  const b = await join(a, 1, { lockPerCall: true });
  expect(session(b.v).store.device).toBeUndefined();
  await a.v.internal.putJSON('settings', { theme: 'light', fontSize: 12, lang: 'en' });
  await mirror(a, b);
  expect(await b.v.internal.getJSON('settings')).toMatchObject({ theme: 'light' });
  await mirror(b, a);
  await a.v.ingest();
  expect(session(a.v).store.state.devices.has(await devOf(b))).toBe(true);
  await syncAll([a, b]);
  expect(session(a.v).store.state.devices.has(await devOf(b))).toBe(true);
  // b offline: changes the theme; a changes the font size many times and checkpoints.
  await b.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12, lang: 'en' });
  for (let i = 13; i < 25; i++) await a.v.internal.putJSON('settings', { theme: 'light', fontSize: i, lang: 'en' });
  await session(a.v).checkpoint();
  await syncAll([a, b]);
  for (const x of [a, b]) expect(await x.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 24, lang: 'en' });
}, 30_000);

it('a computer whose state folder is restored from an old backup: its later offline change still merges against the value it replaced', async () => {
  const a = await made();
  const b = await join(a, 1);
  await syncAll([a, b]);
  await b.v.close();
  opened.splice(opened.indexOf(b.v), 1);
  const backup = path.join(root, 's1-backup');
  await fs.cp(path.join(root, 's1'), backup, { recursive: true });
  const b2 = { dir: b.dir, v: await Vault.open(b.dir, opts('s1')) };
  await b2.v.unlockWithRecoveryKey(recovery);
  await a.v.internal.putJSON('settings', { theme: 'light', fontSize: 13, lang: 'en' });
  await syncAll([a, b2]);
  await b2.v.internal.putJSON('settings', { theme: 'light', fontSize: 13, lang: 'fr' });
  await syncAll([a, b2]);
  await b2.v.close();
  await fs.rm(path.join(root, 's1'), { recursive: true });
  await fs.cp(backup, path.join(root, 's1'), { recursive: true });
  const b3 = { dir: b.dir, v: await Vault.open(b.dir, opts('s1')) };
  opened.push(b3.v);
  await b3.v.unlockWithRecoveryKey(recovery);
  expect(await b3.v.internal.getJSON('settings')).toEqual({ theme: 'light', fontSize: 13, lang: 'fr' });
  // b offline: theme; a: font size, then checkpoints.
  await b3.v.internal.putJSON('settings', { theme: 'dark', fontSize: 13, lang: 'fr' });
  for (let i = 14; i < 20; i++) await a.v.internal.putJSON('settings', { theme: 'light', fontSize: i, lang: 'fr' });
  await session(a.v).checkpoint();
  await syncAll([a, b3]);
  for (const x of [a, b3]) expect(await x.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 19, lang: 'fr' });
  for (const x of [a, b3]) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

async function segments(c: Computer): Promise<Array<{ name: string; size: number }>> {
  const own = path.join(c.dir, 'devices', session(c.v).store.device ?? 'none');
  const out: Array<{ name: string; size: number }> = [];
  for (const rel of (await fs.readdir(own, { recursive: true }).catch(() => [])) as string[]) {
    const st = await fs.stat(path.join(own, rel));
    if (st.isFile()) out.push({ name: rel, size: st.size });
  }
  return out;
}

// Was a bug (a computer reported "still arriving" for ever): announce2 runs at unlock and at every ingest and swallows
// its errors; on a full disk each try created a new first journal segment (j-000000000001-<random>) that stayed empty or
// torn (the bytes that fitted), never removed, carried by the sync engine; every computer that read the vault afterwards
// reported that device's segment as "still arriving" (and its verify, a waiting line). Now a segment whose header could
// not be written, or that holds no whole record when it is closed, is removed (journal2.ts `start`, `close`).
it('a full disk during the announcement leaves empty or torn journal segments: a computer joining later reads everything and is told nothing is still arriving', async () => {
  const a = await made();
  await a.v.ingest();
  const disk = fullDisk();
  disk.room.bytes = 40;
  const b = await join(a, 1, { fs: disk.fs });
  for (let i = 0; i < 3; i++) await b.v.ingest();
  disk.room.bytes = Infinity;
  await b.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12, lang: 'en' });
  await syncAll([a, b]);
  const c = await join(a, 2);
  expect(await c.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 12, lang: 'en' });
  // Seen: five first segments, four of them empty (0 bytes) or torn (40) by the announcement's tries at unlock and at
  // each ingest, one holding b's records (1,279). c's ingest and verify then say "j-000000000001-<x> still arriving"
  // whenever a leftover sorts after the good one (5 runs of 5).
  expect((await segments(b)).filter((x) => x.size < 100)).toEqual([]);
  expect(await c.v.ingest()).toEqual([]);
  expect(await c.v.verify()).toEqual({ ok: true, problems: [] });
}, 30_000);

/** A settings-sized value (about 400 bytes of JSON). */
const settingsValue = (n: number) => ({ theme: 'light', fontSize: 12, lang: 'en', n, sendOnEnter: true, model: 'claude-x', pad: 'p'.repeat(300) });

it(`cost: with one computer known but offline, the bytes the other keeps over ${SAVES} saves of a settings-sized value (checkpoint every 4 records), and after the offline one returns, writes and the other checkpoints twice`, async () => {
  const a = await made();
  const b = await join(a, 1);
  await syncAll([a, b]);
  const ownA = path.join(a.dir, 'devices', await devOf(a));
  const sizes: Record<string, number> = { start: await bytesUnder(ownA) };
  for (let i = 1; i <= SAVES; i++) {
    await a.v.internal.putJSON('settings', settingsValue(i));
    if (i % 50 === 0) sizes[`offline ${i}`] = await bytesUnder(ownA);
  }
  const held = session(a.v).store.state.kv.get('settings')!.vals.size;
  // b returns, reads everything, writes (its records' dep say it saw a's last value), and a checkpoints twice.
  await syncAll([a, b]);
  await b.v.internal.putJSON('sim/b', new TextEncoder().encode('back'));
  await syncAll([a, b]);
  await session(a.v).checkpoint();
  sizes['after 1st checkpoint'] = await bytesUnder(ownA);
  await a.v.internal.putJSON('settings', settingsValue(SAVES + 1));
  await session(a.v).checkpoint();
  sizes['after 2nd checkpoint'] = await bytesUnder(ownA);
  const forgotten = session(a.v).store.state.forgotten.size;
  console.log('attack-announce cost', JSON.stringify({ ...sizes, valuesHeld: held, forgotten }));
  expect(sizes[`offline ${SAVES}`]!).toBeGreaterThan(sizes['offline 50']!);
  // Measured: start 1,332 B; offline 100/200/300/400/500: 141,347 / 389,519 / 449,019 / 639,591 / 699,091 B; after the
  // return, 1st checkpoint 714,598 B (it writes the forget of 500 values), 2nd 396,171 B; one computer alone (the control,
  // 500 saves): 276,258 B at 250, 404,328 B at 500 (the state keeps every old value's entry, §12.4).
  expect(sizes['after 2nd checkpoint']!).toBeLessThan(sizes[`offline ${SAVES}`]! * 0.7);
  await syncAll([a, b]);
  for (const x of [a, b]) expect(await x.v.internal.getJSON('settings')).toEqual(settingsValue(SAVES + 1));
}, 60_000);

it('control for the cost: one computer alone, the first 100 of the same saves', async () => {
  const a = await made();
  const ownA = path.join(a.dir, 'devices', await devOf(a));
  for (let i = 1; i <= 100; i++) await a.v.internal.putJSON('settings', settingsValue(i));
  const alone = await bytesUnder(ownA);
  console.log('attack-announce cost control', alone);
  // The offline case at 100 saves: 141,347 B.
  expect(alone).toBeLessThan(141_347);
  expect(session(a.v).store.state.forgotten.size).toBeGreaterThan(90);
}, 60_000);

it('three computers, offline periods and checkpoints between: settings, a project name and a conversation title each changed on one side keep their change, and all end alike', async () => {
  const a = await made();
  const A = await devOf(a);
  const K = 'conversations/00000000000000c1';
  await a.v.internal.putJSON('projects/p1', { name: 'Alpha', created: 1 });
  await a.v.internal.putJSON(K, { v: 2, logs: { [A]: 1 }, entries: 2, meta: { id: '00000000000000c1', title: 'Trip', created: 1, updated: 1 } });
  await a.v.ingest();
  const b = await join(a, 1);
  const c = await join(a, 2);
  const all = [a, b, c];
  await syncAll(all);
  type Obj = Record<string, unknown>;
  const edit = async (x: Computer, key: string, f: (v: Obj) => Obj) => x.v.internal.putJSON(key, f((await x.v.internal.getJSON(key)) as Obj));
  // c offline. a: the font size and a turn; b: the project's name; both sync and checkpoint.
  await edit(a, 'settings', (v) => ({ ...v, fontSize: 14 }));
  await edit(a, K, (v) => ({ ...v, logs: { [A]: 2 }, entries: 4, meta: { ...(v.meta as Obj), updated: 3 } }));
  await edit(b, 'projects/p1', (v) => ({ ...v, name: 'Beta' }));
  await syncAll([a, b]);
  for (let i = 0; i < 5; i++) await edit(a, 'sim/a', () => ({ i }));
  for (const x of [a, b]) await session(x.v).checkpoint();
  await syncAll([a, b]);
  // c, offline: the theme and the conversation's title, on what it read before.
  await edit(c, 'settings', (v) => ({ ...v, theme: 'dark' }));
  await edit(c, K, (v) => ({ ...v, meta: { ...(v.meta as Obj), title: 'Trip to Rome', updated: 2 } }));
  // b offline now: the language. a: the font size again, checkpoints; c comes back to a only.
  await edit(b, 'settings', (v) => ({ ...v, lang: 'fr' }));
  await edit(a, 'settings', (v) => ({ ...v, fontSize: 15 }));
  await session(a.v).checkpoint();
  await syncAll([a, c]);
  for (const x of [a, c]) await session(x.v).checkpoint();
  await syncAll([a, c]);
  await syncAll(all);
  const want = { settings: { theme: 'dark', fontSize: 15, lang: 'fr' }, project: { name: 'Beta', created: 1 }, title: 'Trip to Rome', logs: { [A]: 2 } };
  const read = async (x: Computer) => {
    const conv = (await x.v.internal.getJSON(K)) as { logs: Obj; meta: { title: string } };
    return { settings: await x.v.internal.getJSON('settings'), project: await x.v.internal.getJSON('projects/p1'), title: conv.meta.title, logs: conv.logs };
  };
  for (const x of all) expect(await read(x)).toEqual(want);
  // Everyone checkpoints (forgets what all have seen), twice, with syncs between: still the same, and verify passes.
  for (let round = 0; round < 2; round++) {
    for (const x of all) await session(x.v).checkpoint();
    await syncAll(all);
  }
  for (const x of all) expect(await read(x)).toEqual(want);
  for (const x of all) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// Found by the attack on 57cc635 (unbounded growth, no way out), fixed with "Forget this computer" (devices.ts): a
// computer that announced itself once and never comes back under that id holds back the forgetting of every value
// replaced since, until it is forgotten. The commonest way: its state folder is lost (a reinstall, a new user account, a
// wiped laptop), and it comes back as a new device. The device list shows the old id as behind, and forgetting it lets the
// next checkpoint forget (about 650 B kept per settings save until then, see the cost case).
/**
 * a and b; b closes, its state folder lost if `lose`, and opens again; a saves, b writes, a forgets b's old id if
 * `forgetOld`, and checkpoints twice: what a forgot of its own.
 */
async function reopenAndForget(lose: boolean, forgetOld = false): Promise<number> {
  const a = await made();
  const b = await join(a, 1);
  await syncAll([a, b]);
  const first = await devOf(b);
  await b.v.close();
  opened.splice(opened.indexOf(b.v), 1);
  if (lose) await fs.rm(path.join(root, 's1'), { recursive: true });
  const b2 = { dir: b.dir, v: await Vault.open(b.dir, opts('s1')) };
  opened.push(b2.v);
  await b2.v.unlockWithRecoveryKey(recovery);
  await syncAll([a, b2]);
  expect((await devOf(b2)) === first).toBe(!lose);
  for (let i = 1; i <= 8; i++) await a.v.internal.putJSON('settings', settingsValue(i));
  await syncAll([a, b2]);
  await b2.v.internal.putJSON('sim/b', new TextEncoder().encode('here'));
  await syncAll([a, b2]);
  if (forgetOld) {
    expect((await a.v.devices()).find((d) => d.id === first)).toMatchObject({ behind: true, forgotten: false });
    await a.v.forgetDevice(first);
  }
  for (let round = 0; round < 2; round++) {
    await session(a.v).checkpoint();
    await syncAll([a, b2]);
  }
  const me = await devOf(a);
  return [...session(a.v).store.state.forgotten].filter((v) => v.startsWith(`${me}:`)).length;
}

it('a computer whose state folder is lost comes back as a new device: its old id holds back forgetting', async () => {
  expect(await reopenAndForget(true)).toBe(0);
}, 30_000);

it('… until the user forgets the old id (listed as behind): then a checkpoint forgets what was replaced', async () => {
  expect(await reopenAndForget(true, true)).toBeGreaterThan(0);
}, 30_000);

it('control: the same computer back with its state folder: the checkpoint forgets', async () => {
  expect(await reopenAndForget(false)).toBeGreaterThan(0);
}, 30_000);
