/**
 * Attacks on key rotation in format 2 (sync/rotate2.ts, sync/epochs.ts, docs/sync-design.md §7, §12.10): power cuts
 * in the other computer's rejoin and close of the old epoch, computers offline across two rotations or forgotten,
 * compaction across epochs, hostile keys files and old-epoch folders, the new header before the keys file, old keys
 * and secrets, and a rotation of many memories. Each looks for an acknowledged write lost, a key leaked or a computer
 * locked out.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';
import { FULL } from '../vault/crash-sim';
import { carryRemovals, session, syncAll as syncEach, mirror, vaultRoom, type Computer } from './carry-vaults';
import { allFiles, carryHeader, errorEach, carrySome, crashRejoin, epochFolders, epochOf, imageFolder, readImage } from './rot-world';
import { storeKeys } from '../../../electron/core/vault/keys';
import { liveBlobs } from '../../../electron/core/vault/sync/blobs2';
import { PASS } from './two-computers';

const { room, computers } = vaultRoom('rotattack');
const mine: Vault[] = [];
afterEach(async () => {
  for (const v of mine.splice(0)) await v.close().catch(() => undefined);
});

/** Closes computer i and opens its folder again with the passphrase (the room's recovery key is the old one). */
async function reopen(c: Computer, i: number): Promise<Computer> {
  await c.v.close();
  const v = await Vault.open(c.dir, { ...O, stateDir: path.join(room.root, `s${i}`) });
  mine.push(v);
  await v.unlock(PASS);
  return { dir: c.dir, v };
}

const write = (c: Computer, name: string, text = name) => c.v.memory.writeFile(`/memories/${name}.md`, text, { mode: 'upsert', source: 'user' });
const read = (c: Computer, name: string) => c.v.memory.readFile(`/memories/${name}.md`);
const T = FULL ? 3_600_000 : 240_000;
const O: OpenOptions = { format2: true, ackDelayMs: 0, journalLimit: 4 };

async function readsAll(c: Computer, names: Record<string, string>): Promise<string[]> {
  const bad: string[] = [];
  for (const [n, t] of Object.entries(names)) {
    const got = await read(c, n).catch((e: Error) => `<${e.message}>`);
    if (got !== t) bad.push(`${n}: ${got}`);
  }
  return bad;
}

it('a power cut after any file-system call of the other computer\'s rejoin (keys file, checkpoint, its old files removed, a write) loses no acknowledged write, on either computer', async () => {
  const [a, b] = await computers(2);
  for (let i = 0; i < 5; i++) await write(a!, `a${i}`);
  for (let i = 0; i < 5; i++) await write(b!, `b${i}`);
  await syncAll([a!, b!]);
  // B writes on under the old keys, offline; A rotates and writes under the new ones.
  await write(b!, 'boff1');
  await write(b!, 'shared', 'from B');
  const e0 = await epochOf(a!.dir);
  const bDev = (await b!.v.internal.device!(false))!;
  const recovery = await a!.v.rotateKeys(PASS);
  await write(a!, 'anew');
  await a!.v.close();
  await b!.v.close();
  await mirror(a!, b!);
  await carryHeader(a!.dir, b!.dir);
  const base = await readImage(b!.dir);
  const names: Record<string, string> = { shared: 'from B', boff1: 'boff1', anew: 'anew' };
  for (let i = 0; i < 5; i++) Object.assign(names, { [`a${i}`]: `a${i}`, [`b${i}`]: `b${i}` });
  const res = await crashRejoin({
    root: room.root,
    base,
    me: { state: path.join(room.root, 's1') },
    other: { state: path.join(room.root, 's0') },
    recovery: PASS,
    opts: O,
    stride: FULL ? 1 : 7,
    op: async (sim, stateDir, done) => {
      const v = await Vault.open(path.join(room.root, 'run'), { ...O, fs: sim, stateDir });
      await v.unlockWithRecoveryKey(recovery);
      done('unlock');
      await v.memory.writeFile('/memories/bnew.md', 'bnew', { mode: 'upsert', source: 'user' });
      done('bnew');
      await v.close();
    },
    expect: (done) => new Map([...Object.entries(names), ...(done.has('bnew') ? [['bnew', 'bnew'] as [string, string]] : [])]),
  });
  // The op did close B's old epoch: its files there are gone.
  expect(imageFolder(res.final, bDev, e0)).toEqual([]);
  expect(imageFolder(base, bDev, e0).length).toBeGreaterThan(2);
  console.log(`rotation rejoin: ${res.points} crash points of ${res.calls} calls, each opened by both computers`);
  expect(res.problems).toEqual([]);
}, T);

/** A and B wrote and synced; B wrote on offline under the old keys; A rotated and wrote under the new ones. */
async function rotated(n = 2) {
  const cs = await computers(n);
  const [a, b] = cs as [Computer, Computer];
  for (let i = 0; i < 3; i++) await write(a, `a${i}`);
  for (let i = 0; i < 3; i++) await write(b, `b${i}`);
  await syncAll(cs);
  await write(b, 'boff');
  await write(b, 'shared', 'from B');
  const e0 = await epochOf(a.dir);
  const aDev = (await a.v.internal.device!(false))!;
  const bDev = (await b.v.internal.device!(false))!;
  const recovery = await a.v.rotateKeys(PASS);
  const e1 = await epochOf(a.dir);
  await write(a, 'anew');
  const names: Record<string, string> = { boff: 'boff', shared: 'from B', anew: 'anew', a0: 'a0', a1: 'a1', a2: 'a2', b0: 'b0', b1: 'b1', b2: 'b2' };
  return { cs, a, b, e0, e1, aDev, bDev, recovery, names };
}

/** B gets the new header: its session ends (LOCKED), and it unlocks again with the same passphrase. */
async function relock(b: Computer, from: Computer): Promise<void> {
  await carryHeader(from.dir, b.dir);
  await expect(b.v.ingest()).rejects.toMatchObject({ code: 'LOCKED' });
  await b.v.unlock(PASS);
}

const dirOf = (c: Computer, dev: string, ep: string) => path.join(c.dir, 'devices', dev, ep.slice(0, 8));

it('junk keys files named to sort first (in the rotating computer\'s folder and in B\'s own) and one copied from A\'s folder to B\'s: B still reads the old epoch, keeps its id, and nothing is hidden', async () => {
  const { a, b, e1, aDev, bDev, names } = await rotated();
  await mirror(a, b);
  const aFolder = dirOf(b, aDev, e1);
  const real = (await fs.readdir(aFolder)).filter((n) => n.startsWith('k-'));
  expect(real).toHaveLength(1);
  // Anyone who can write the folder: files named like keys files, sorting before the real one, some with the magic.
  for (let i = 1; i <= 12; i++) await fs.writeFile(path.join(aFolder, `k-${i.toString(16).padStart(16, '0')}`), i % 2 ? Buffer.alloc(200, i) : Buffer.concat([Buffer.from('MNEMOKY2'), Buffer.alloc(120, 7)]));
  // A's real keys file, copied into B's own folder of the new epoch (its AD names A: it opens nowhere else).
  await fs.mkdir(dirOf(b, bDev, e1), { recursive: true });
  await fs.copyFile(path.join(aFolder, real[0]!), path.join(dirOf(b, bDev, e1), `k-${'0'.repeat(16)}`));
  await relock(b, a);
  expect(await readsAll(b, names)).toEqual([]);
  expect(session(b.v).store.device).toBe(bDev);
  // B's own keys file was written (the copy in its folder is not one of its own).
  const own = (await fs.readdir(dirOf(b, bDev, e1))).filter((n) => n.startsWith('k-'));
  expect(own.length).toBe(2);
  await write(b, 'bnew');
  await syncAll([b, a]);
  const a2 = await reopen(a, 0);
  await syncAll([a2, b]);
  expect(await readsAll(a2, { ...names, bnew: 'bnew' })).toEqual([]);
  for (const c of [a2, b]) expect(await c.v.verify()).toMatchObject({ ok: true });
}, T);

it('the new vault.json (and A\'s checkpoint of the new epoch) reaches B before A\'s keys file: B may go on under a new id, but once the keys file is here every computer reads everything, and verify is clean', async () => {
  const { a, b, e1, aDev, bDev, names } = await rotated();
  const late = await carrySome(a.dir, b.dir, (rel) => rel.startsWith(path.join(aDev, e1.slice(0, 8), 'k-')));
  expect(late).toHaveLength(1);
  await relock(b, a);
  const hidden = await readsAll(b, names);
  console.log(`B before the keys file: ${hidden.length} memories not shown, ${session(b.v).store.device === bDev ? 'its id kept' : 'gone on under a new id'}; notices: ${session(b.v).store.notices.map((x) => x.text).join(' | ')}`);
  await write(b, 'bnew');
  // A gets B's files (B wrote in the new epoch): A may close its old one now.
  await mirror(b, a);
  const a2 = await reopen(a, 0);
  await syncAll([a2, b]);
  const b2 = await reopen(b, 1);
  await syncAll([a2, b2]);
  const all = { ...names, bnew: 'bnew' };
  expect(await readsAll(b2, all)).toEqual([]);
  const a3 = await reopen(a2, 0);
  await syncAll([a3, b2]);
  expect(await readsAll(a3, all)).toEqual([]);
  for (const c of [a3, b2]) expect(await c.v.verify()).toMatchObject({ ok: true });
}, T);

/** `syncAll`, each computer's removals carried first (the test's sync would bring them back otherwise). */
async function syncAll(cs: Computer[]): Promise<void> {
  for (const x of cs) for (const y of cs) if (x !== y) await carryRemovals(x, y);
  await syncEach(cs);
}

/** Syncs `cs` with the header carried by counter; every computer the new header ended unlocks again. */
async function syncRelock(cs: Computer[]): Promise<void> {
  await syncAll(cs).catch(() => undefined);
  for (const x of cs) for (const y of cs) if (x !== y) await carryHeader(x.dir, y.dir);
  for (const c of cs) {
    await c.v.ingest().catch(() => undefined);
    if (!c.v.isUnlocked()) await c.v.unlock(PASS);
  }
  await syncAll(cs);
}

for (const forgotten of [false, true]) {
  it(`C offline (${forgotten ? 'and forgotten by B' : 'not forgotten'}) across two rotations, writing under the first keys for days: its writes survive, every computer reads everything, and the old epochs close once C is back`, async () => {
    const cs = await computers(3);
    let [a, b, c] = cs as [Computer, Computer, Computer];
    for (const [i, x] of [a, b, c].entries()) await write(x, `w${i}`);
    await syncAll([a, b, c]);
    const e0 = await epochOf(a.dir);
    const cDev = (await c.v.internal.device!(false))!;
    // C offline from here on.
    for (let i = 0; i < 6; i++) await write(c, `coff${i}`);
    await write(c, 'shared', 'C offline');
    if (forgotten) await b.v.forgetDevice(cDev);
    await a.v.rotateKeys(PASS);
    await write(a, 'a-e1');
    await syncRelock([a, b]);
    await write(b, 'b-e1');
    a = await reopen(a, 0);
    b = await reopen(b, 1);
    await syncRelock([a, b]);
    const e1 = await epochOf(a.dir);
    await b.v.rotateKeys(PASS);
    await write(b, 'b-e2');
    await syncRelock([a, b]);
    a = await reopen(a, 0);
    b = await reopen(b, 1);
    await syncRelock([a, b]);
    const e2 = await epochOf(a.dir);
    const left = await epochFolders(a.dir);
    console.log(`before C is back: epoch folders ${[...left].map((e) => (e === e0.slice(0, 8) ? 'E0' : e === e1.slice(0, 8) ? 'E1' : e === e2.slice(0, 8) ? 'E2' : e)).join(',')}`);
    // C comes back: it gets everything and the newest header; its session ends and it unlocks with the same passphrase.
    await syncRelock([a, b, c]);
    const names: Record<string, string> = { w0: 'w0', w1: 'w1', w2: 'w2', 'a-e1': 'a-e1', 'b-e1': 'b-e1', 'b-e2': 'b-e2', shared: 'C offline' };
    for (let i = 0; i < 6; i++) names[`coff${i}`] = `coff${i}`;
    for (const x of [a, b, c]) expect(await readsAll(x, names)).toEqual([]);
    await write(c, 'c-e2');
    a = await reopen(a, 0);
    b = await reopen(b, 1);
    c = await reopen(c, 2);
    await syncRelock([a, b, c]);
    a = await reopen(a, 0);
    b = await reopen(b, 1);
    c = await reopen(c, 2);
    await syncAll([a, b, c]);
    for (const x of [a, b, c]) {
      expect(await readsAll(x, { ...names, 'c-e2': 'c-e2' })).toEqual([]);
      expect(await x.v.verify()).toMatchObject({ ok: true });
    }
    // Each computer's own folders on its own disk: only the newest epoch's (the test's sync brings removed files of
    // other computers back, which a real engine would not).
    for (const x of [a, b, c]) {
      const me = (await x.v.internal.device!(false))!;
      expect(await fs.readdir(path.join(x.dir, 'devices', me))).toEqual([e2.slice(0, 8)]);
    }
  }, T);
}

it('secrets: no old (or new) master key or subkey lies in plain on disk in either computer\'s folders, and the old header with the old recovery key (a sync engine\'s kept version) opens nothing written after the rotation', async () => {
  const { a, b, names } = await rotated();
  const oldVmk = session(a.v).store.older[0]!.vmk.slice();
  const newVmk = session(a.v).vmk.slice();
  const oldHeader = await fs.readFile(path.join(room.root, 'v1', 'vault.json'));
  await syncRelock([a, b]);
  await write(b, 'bnew', 'secret after rotation');
  await syncAll([a, b]);
  const a2 = await reopen(a, 0);
  await syncAll([a2, b]);
  const secrets: Array<[string, Buffer]> = [];
  for (const [what, vmk] of [['old', oldVmk], ['new', newVmk]] as const) {
    secrets.push([`${what} vmk`, Buffer.from(vmk)], [`${what} vmk hex`, Buffer.from(Buffer.from(vmk).toString('hex'))], [`${what} vmk base64`, Buffer.from(Buffer.from(vmk).toString('base64'))]);
    const k = storeKeys(vmk);
    for (const [n, key] of Object.entries(k)) secrets.push([`${what} ${n} key`, Buffer.from(key)], [`${what} ${n} key hex`, Buffer.from(Buffer.from(key).toString('hex'))]);
  }
  const found: string[] = [];
  for (const dir of [a2.dir, b.dir, path.join(room.root, 's0'), path.join(room.root, 's1')]) {
    for (const f of await allFiles(dir)) for (const [what, bytes] of secrets) if (f.bytes.includes(bytes)) found.push(`${what} in ${path.relative(room.root, path.join(dir, f.rel))}`);
  }
  expect(found).toEqual([]);
  // The old header, put back as a sync engine's kept version would be: the old recovery key opens the old epoch only.
  await a2.v.close();
  const copy = path.join(room.root, 'old-copy');
  await fs.cp(a2.dir, copy, { recursive: true });
  await fs.writeFile(path.join(copy, 'vault.json'), oldHeader);
  const v = await Vault.open(copy, { ...O, stateDir: path.join(room.root, 's-old'), readOnly: true });
  mine.push(v);
  await v.unlockWithRecoveryKey(room.recovery);
  const seen = { dir: copy, v };
  expect(await read(seen, 'bnew').catch(() => 'hidden')).toBe('hidden');
  expect(await read(seen, 'anew').catch(() => 'hidden')).toBe('hidden');
  console.log(`the old header and recovery key, after the rotation: ${(await readsAll(seen, names)).length} of ${Object.keys(names).length} older memories not shown`);
}, T);

it('compaction across epochs: packs and checkpoints of the old epoch on both sides, A closes its old files while B\'s session still knows their places, more compaction in the new epoch, then B rotates again: every version reads everywhere', async () => {
  const cs = await computers(2);
  let [a, b] = cs as [Computer, Computer];
  const names: Record<string, string> = {};
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < 8; i++) {
      await write(a, `pa${i}`, `a ${i} round ${r}`);
      await write(b, `pb${i}`, `b ${i} round ${r}`);
      names[`pa${i}`] = `a ${i} round ${r}`;
      names[`pb${i}`] = `b ${i} round ${r}`;
    }
  }
  await syncAll([a, b]);
  // Compacted: packs in both old folders.
  for (const c of [a, b]) {
    const me = (await c.v.internal.device!(false))!;
    expect((await fs.readdir(path.join(c.dir, 'devices', me, (await epochOf(c.dir)).slice(0, 8)))).some((n) => n.startsWith('p-'))).toBe(true);
  }
  await a.v.rotateKeys(PASS);
  await syncRelock([a, b]);
  expect(await readsAll(b, names)).toEqual([]);
  await write(b, 'after', 'B in the new epoch');
  names.after = 'B in the new epoch';
  // A closes its old files (B wrote in the new epoch); B's open session still has their places, and is sent the removal.
  a = await reopen(a, 0);
  const aDev = (await a.v.internal.device!(false))!;
  expect(await fs.readdir(path.join(a.dir, 'devices', aDev))).toEqual([(await epochOf(a.dir)).slice(0, 8)]);
  await mirror(a, b);
  await b.v.ingest();
  expect(await readsAll(b, names)).toEqual([]);
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < 8; i++) {
      await write(a, `pa${i}`, `a ${i} new ${r}`);
      names[`pa${i}`] = `a ${i} new ${r}`;
    }
  }
  await syncAll([a, b]);
  b = await reopen(b, 1);
  await syncAll([a, b]);
  await b.v.rotateKeys(PASS);
  await syncRelock([b, a]);
  a = await reopen(a, 0);
  b = await reopen(b, 1);
  await syncAll([b, a]);
  for (const c of [a, b]) {
    expect(await readsAll(c, names)).toEqual([]);
    // Every older version too.
    for (const n of ['pa0', 'pb7']) for (const h of c.v.history(`/memories/${n}.md`)) await c.v.readVersion(`/memories/${n}.md`, h.version);
    expect(await c.v.verify()).toMatchObject({ ok: true });
  }
}, T);

it('a power cut after any file-system call of A\'s close of its old epoch (at its unlock, once B wrote in the new one) loses nothing on either computer', async () => {
  const { a, b, names, aDev, e0 } = await rotated();
  // (A does not see B's files of the new epoch before the op: it would close its old ones at that ingest.)
  await mirror(a, b);
  await relock(b, a);
  await write(b, 'bnew');
  await a.v.close();
  await b.v.close();
  await mirror(b, a);
  const base = await readImage(a.dir);
  const all = new Map(Object.entries({ ...names, bnew: 'bnew' }));
  const res = await crashRejoin({
    root: room.root,
    base,
    me: { state: path.join(room.root, 's0') },
    other: { state: path.join(room.root, 's1') },
    recovery: PASS,
    opts: O,
    stride: FULL ? 1 : 5,
    op: async (sim, stateDir, done) => {
      const v = await Vault.open(path.join(room.root, 'run'), { ...O, fs: sim, stateDir });
      await v.unlock(PASS);
      done('unlock');
      await v.close();
    },
    expect: () => all,
  });
  // The op did close A's old epoch.
  expect(imageFolder(base, aDev, e0).length).toBeGreaterThan(1);
  expect(imageFolder(res.final, aDev, e0)).toEqual([]);
  console.log(`close of the old epoch: ${res.points} crash points of ${res.calls} calls, each opened by both computers`);
  expect(res.problems).toEqual([]);
}, T);

/** A and B wrote a0..a2 and b0..b2, carried; B wrote `boff` offline; both closed, B's files carried to A. */
async function beforeRotation(): Promise<{ a: Computer; b: Computer; names: Map<string, string> }> {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  for (let i = 0; i < 3; i++) await write(a, `a${i}`);
  for (let i = 0; i < 3; i++) await write(b, `b${i}`);
  await syncAll(cs);
  await write(b, 'boff');
  await a.v.close();
  await b.v.close();
  await mirror(b, a);
  const names = new Map(Object.entries({ a0: 'a0', a1: 'a1', a2: 'a2', b0: 'b0', b1: 'b1', b2: 'b2', boff: 'boff' }));
  return { a, b, names };
}

it('a power cut after any file-system call of A\'s rotation: B, with its offline writes under the old keys, then opens what A left and loses nothing, and A opens it again after B', async () => {
  const { a, names } = await beforeRotation();
  const res = await crashRejoin({
    root: room.root,
    base: await readImage(a.dir),
    me: { state: path.join(room.root, 's0') },
    other: { state: path.join(room.root, 's1') },
    recovery: PASS,
    opts: O,
    stride: FULL ? 1 : 9,
    op: async (sim, stateDir, done) => {
      const v = await Vault.open(path.join(room.root, 'run'), { ...O, fs: sim, stateDir });
      await v.unlock(PASS);
      await v.rotateKeys(PASS);
      done('rotated');
      await v.memory.writeFile('/memories/anew.md', 'anew', { mode: 'upsert', source: 'user' });
      done('anew');
      await v.close();
    },
    expect: (done) => new Map([...names, ...(done.has('anew') ? [['anew', 'anew'] as [string, string]] : [])]),
  });
  console.log(`rotation seen by the other computer: ${res.points} crash points of ${res.calls} calls`);
  expect(res.problems).toEqual([]);
}, T);

it('hostile names in the old and the new epoch folders: a FIFO named like a keys file, a checkpoint, a pack and a segment, a folder named like a checkpoint, junk named like a checkpoint: B still unlocks, writes (with checkpoints), reads everything, and closes its old epoch', async () => {
  const { a, b, e0, e1, aDev, bDev, names } = await rotated();
  await mirror(a, b);
  const { execFileSync } = await import('node:child_process');
  for (const ep of [e0, e1]) {
    const dir = dirOf(b, aDev, ep);
    for (const n of ['k-ffffffffffffffff', 'c-0000000000ff-ffffffff', 'p-ffffffffffffffff', 'j-0000000000fe-ffffffff']) execFileSync('mkfifo', [path.join(dir, n)]);
    await fs.mkdir(path.join(dir, 'c-0000000000fd-ffffffff'));
    await fs.writeFile(path.join(dir, 'c-0000000000fc-ffffffff'), Buffer.alloc(300, 1));
  }
  // A folder named like an old epoch of A's that no key names, with junk in it.
  await fs.mkdir(path.join(b.dir, 'devices', aDev, '00000000'), { recursive: true });
  await fs.writeFile(path.join(b.dir, 'devices', aDev, '00000000', 'c-000000000001-00000000'), Buffer.alloc(100, 2));
  await relock(b, a);
  expect(await readsAll(b, names)).toEqual([]);
  for (let i = 0; i < 10; i++) await write(b, `bn${i}`);
  await b.v.ingest();
  for (let i = 0; i < 10; i++) expect(await read(b, `bn${i}`)).toBe(`bn${i}`);
  expect(await readsAll(b, names)).toEqual([]);
  expect(await fs.readdir(path.join(b.dir, 'devices', bDev))).toEqual([e1.slice(0, 8)]);
}, 60_000);

it('junk named like a checkpoint, with a seq far above any it wrote, in B\'s own folder of the old epoch: B still closes that epoch (its own old files go), and does not checkpoint at every call', async () => {
  const { a, b, e0, e1, bDev, names } = await rotated();
  await mirror(a, b);
  await fs.writeFile(path.join(dirOf(b, bDev, e0), 'c-0000000fffff-ffffffff'), Buffer.alloc(300, 1));
  await relock(b, a);
  expect(await readsAll(b, names)).toEqual([]);
  await write(b, 'after');
  await b.v.ingest();
  expect(await fs.readdir(path.join(b.dir, 'devices', bDev))).toEqual([e1.slice(0, 8)]);
  // And the calls after it write no checkpoint each.
  const checkpoints = async () => (await fs.readdir(dirOf(b, bDev, e1))).filter((n) => n.startsWith('c-')).length;
  const before = await checkpoints();
  for (let i = 0; i < 3; i++) await b.v.ingest();
  expect(await checkpoints()).toBe(before);
}, 60_000);

it('1,000 junk keys files named to sort before the real one: B still reads the old epoch (time logged)', async () => {
  const { a, b, e1, aDev, bDev, names } = await rotated();
  await mirror(a, b);
  const dir = dirOf(b, aDev, e1);
  for (let i = 0; i < 1000; i++) await fs.writeFile(path.join(dir, `k-${i.toString(16).padStart(16, '0')}`), Buffer.concat([Buffer.from('MNEMOKY2'), Buffer.alloc(100, i % 251)]));
  const t = Date.now();
  await relock(b, a);
  console.log(`unlock past 1,000 junk keys files: ${Date.now() - t} ms`);
  expect(await readsAll(b, names)).toEqual([]);
  expect(session(b.v).store.device).toBe(bDev);
}, T);

it('the sync engine brings B\'s removed old-epoch files back (from A\'s copy) while B is open and again before it opens: nothing is lost or doubled, and they are removed again', async () => {
  const { a, b, e0, bDev, names } = await rotated();
  await mirror(a, b);
  await relock(b, a);
  await write(b, 'bnew');
  const all = { ...names, bnew: 'bnew' };
  // A has B's old files still (its copy); B removed its own.
  const bOld = (dev: string, c: Computer) => fs.readdir(path.join(c.dir, 'devices', dev, e0.slice(0, 8))).catch(() => [] as string[]);
  expect(await bOld(bDev, b)).toEqual([]);
  expect((await bOld(bDev, a)).length).toBeGreaterThan(0);
  await carrySome(a.dir, b.dir, () => false);
  expect((await bOld(bDev, b)).length).toBeGreaterThan(0);
  await b.v.ingest();
  expect(await readsAll(b, all)).toEqual([]);
  await write(b, 'bnew2');
  await carrySome(a.dir, b.dir, () => false);
  const b2 = await reopen(b, 1);
  expect(await readsAll(b2, { ...all, bnew2: 'bnew2' })).toEqual([]);
  expect(await b2.v.verify()).toMatchObject({ ok: true });
  expect(await bOld(bDev, b2)).toEqual([]);
  await syncAll([b2, a]);
  const a2 = await reopen(a, 0);
  expect(await readsAll(a2, { ...all, bnew2: 'bnew2' })).toEqual([]);
  expect(await a2.v.verify()).toMatchObject({ ok: true });
}, T);

it('scale: a rotation of 2,000 memories (300 in npm test) completes, and B reads all of them after its rejoin (times logged)', async () => {
  const cs = await computers(2);
  const big = { ...O, journalLimit: 500 };
  const open = async (c: Computer, i: number): Promise<Computer> => {
    await c.v.close();
    const v = await Vault.open(c.dir, { ...big, stateDir: path.join(room.root, `s${i}`) });
    mine.push(v);
    await v.unlock(PASS);
    return { dir: c.dir, v };
  };
  const a = await open(cs[0]!, 0);
  let b = await open(cs[1]!, 1);
  // 2,000 under MNEMO_DEEP=1; a few hundred in `npm test` (its writes alone take most of a minute here).
  const N = FULL ? 2000 : 300;
  let t = Date.now();
  for (let i = 0; i < N; i++) await write(a, `m/${i}`, `memory ${i} ${'x'.repeat(i % 97)}`);
  console.log(`scale: ${N} memories written in ${Date.now() - t} ms`);
  await syncAll([a, b]);
  await write(b, 'boff');
  t = Date.now();
  await a.v.rotateKeys(PASS);
  console.log(`scale: rotation of ${N} memories in ${Date.now() - t} ms`);
  await mirror(a, b);
  t = Date.now();
  await carryHeader(a.dir, b.dir);
  await expect(b.v.ingest()).rejects.toMatchObject({ code: 'LOCKED' });
  await b.v.unlock(PASS);
  console.log(`scale: B's unlock and rejoin in ${Date.now() - t} ms`);
  t = Date.now();
  for (let i = 0; i < N; i++) expect(await read(b, `m/${i}`)).toBe(`memory ${i} ${'x'.repeat(i % 97)}`);
  expect(await read(b, 'boff')).toBe('boff');
  console.log(`scale: B read ${N} memories in ${Date.now() - t} ms`);
  const bDev = (await b.v.internal.device!(false))!;
  expect(await fs.readdir(path.join(b.dir, 'devices', bDev))).toEqual([(await epochOf(a.dir)).slice(0, 8)]);
  b = await open(b, 1);
  expect(await read(b, `m/${N - 1}`)).toBe(`memory ${N - 1} ${'x'.repeat((N - 1) % 97)}`);
  expect(await b.v.verify()).toMatchObject({ ok: true });
}, 600_000);

// Cosmetic, not fixed: content ids (`k`, docs/sync-design.md §2.1) are keyed by the epoch's master key, so the same
// text written under the old keys and under the new ones no longer collapses (resolve.ts rule 1): two files created
// apart become an edit conflict to acknowledge (the newest text is shown; nothing is lost). Keeping the content-id key
// across epochs (carried in the keys file) would need every computer of the new epoch to agree on it.
it.fails('the same new memory written on both sides of a rotation (B offline under the old keys, A under the new) reads as one text with no conflict, as it does without a rotation', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await syncAll(cs);
  await a.v.rotateKeys(PASS);
  await a.v.memory.writeFile('/memories/same.md', 'one text', { mode: 'create', source: 'user' });
  await b.v.memory.writeFile('/memories/same.md', 'one text', { mode: 'create', source: 'user' });
  await syncRelock([a, b]);
  for (const c of [a, b]) {
    expect(await read(c, 'same')).toBe('one text');
    expect(c.v.conflicts()).toEqual([]);
  }
}, T);

it('a vault made by a format-1 build (its memories in the v1 part, under the first key): two rotations on two computers, every v1 memory and its history reads everywhere, after reopening too', async () => {
  const first = path.join(room.root, 'v0');
  const made = await Vault.create(first, PASS, { kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, stateDir: path.join(room.root, 's0'), format2: false, ackDelayMs: 0 });
  const names: Record<string, string> = {};
  for (let i = 0; i < 6; i++) {
    await made.vault.memory.writeFile(`/memories/v1-${i}.md`, `old ${i}`, { mode: 'upsert', source: 'user' });
    await made.vault.memory.writeFile(`/memories/v1-${i}.md`, `v1 ${i}`, { mode: 'upsert', source: 'user' });
    names[`v1-${i}`] = `v1 ${i}`;
  }
  await made.vault.close();
  await fs.cp(first, path.join(room.root, 'v1'), { recursive: true });
  const open = async (i: number): Promise<Computer> => {
    const v = await Vault.open(path.join(room.root, `v${i}`), { ...O, stateDir: path.join(room.root, `s${i}`) });
    mine.push(v);
    await v.unlock(PASS);
    return { dir: path.join(room.root, `v${i}`), v };
  };
  let a = await open(0);
  let b = await open(1);
  await write(a, 'a0');
  await write(b, 'b0');
  await syncAll([a, b]);
  await a.v.rotateKeys(PASS);
  await write(b, 'boff');
  await syncRelock([a, b]);
  await b.v.rotateKeys(PASS);
  await write(a, 'aoff');
  await syncRelock([b, a]);
  const all = { ...names, a0: 'a0', b0: 'b0', boff: 'boff', aoff: 'aoff' };
  for (const c of [a, b]) expect(await readsAll(c, all)).toEqual([]);
  a = await reopen(a, 0);
  b = await reopen(b, 1);
  await syncAll([a, b]);
  a = await reopen(a, 0);
  for (const c of [a, b]) {
    expect(await readsAll(c, all)).toEqual([]);
    expect(await c.v.readVersion('/memories/v1-3.md', 1)).toBe('old 3');
    expect(await c.v.verify()).toMatchObject({ ok: true });
  }
}, T);

it('vault.json of the new epoch is in place but syncing its folder fails (an I/O error after the rename): the rotation fails, yet the keys file that alone holds the old key stays, and every memory still reads after unlocking again', async () => {
  const cs = await computers(2);
  const [a0, b] = cs as [Computer, Computer];
  for (let i = 0; i < 3; i++) await write(a0, `a${i}`);
  await write(b, 'b0');
  await syncAll(cs);
  await a0.v.close();
  // A's file system: once vault.json was renamed into place, syncing the vault folder fails.
  let renamed = false;
  const flaky: VaultFs = {
    ...nodeFs,
    rename: async (from, to) => {
      await nodeFs.rename(from, to);
      if (path.basename(to) === 'vault.json' && path.basename(from) !== 'vault.json') renamed = true;
    },
    syncDir: async (d) => {
      if (renamed && path.resolve(d) === path.resolve(a0.dir)) throw Object.assign(new Error('EIO'), { code: 'EIO' });
      return nodeFs.syncDir(d);
    },
  };
  const v = await Vault.open(a0.dir, { ...O, stateDir: path.join(room.root, 's0'), fs: flaky });
  mine.push(v);
  await v.unlock(PASS);
  const a = { dir: a0.dir, v };
  await expect(a.v.rotateKeys(PASS)).rejects.toThrow();
  expect(renamed).toBe(true);
  renamed = false;
  await a.v.close();
  const again = await reopen(a, 0);
  const names = { a0: 'a0', a1: 'a1', a2: 'a2', b0: 'b0' };
  expect(await readsAll(again, names)).toEqual([]);
  expect(await again.v.verify()).toMatchObject({ ok: true });
  await syncRelock([again, b]);
  expect(await readsAll(b, names)).toEqual([]);
}, T);

it('a rotation note left behind (its removal failed: a file held open on Windows) after a rotation that did complete: A writes on in that epoch, B rotates again, and A\'s next unlock keeps what A wrote', async () => {
  const cs = await computers(2);
  let [a, b] = cs as [Computer, Computer];
  await write(a, 'a0');
  await write(b, 'b0');
  await syncAll([a, b]);
  await a.v.rotateKeys(PASS);
  const e1 = await epochOf(a.dir);
  await syncRelock([a, b]);
  // The note of the rotation to E1, as if dropping it had failed.
  await fs.writeFile(path.join(room.root, 's0', `${a.v.vaultId}.rotating`), JSON.stringify({ epoch: e1 }));
  // A writes on, offline: B does not have these yet.
  for (let i = 0; i < 3; i++) await write(a, `a-e1-${i}`);
  await b.v.rotateKeys(PASS);
  await mirror(b, a);
  await carryHeader(b.dir, a.dir);
  a = await reopen(a, 0);
  const names = { a0: 'a0', b0: 'b0', 'a-e1-0': 'a-e1-0', 'a-e1-1': 'a-e1-1', 'a-e1-2': 'a-e1-2' };
  expect(await readsAll(a, names)).toEqual([]);
  await syncAll([a, b]).catch(() => undefined);
  b = await reopen(b, 1);
  await syncAll([a, b]);
  expect(await readsAll(b, names)).toEqual([]);
}, T);

it('a rotation that fails after its checkpoint of the new epoch (vault.json not written): the new epoch\'s folder, a full copy of the vault under a key nobody has, is removed at the next open', async () => {
  const cs = await computers(1);
  const a0 = cs[0]!;
  for (let i = 0; i < 3; i++) await write(a0, `a${i}`);
  const me = (await a0.v.internal.device!(false))!;
  await a0.v.close();
  // vault.json cannot be replaced: its temp file's rename fails.
  const failing: VaultFs = { ...nodeFs, rename: async (from, to) => (path.basename(to) === 'vault.json' ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })) : nodeFs.rename(from, to)) };
  const v = await Vault.open(a0.dir, { ...O, stateDir: path.join(room.root, 's0'), fs: failing });
  mine.push(v);
  await v.unlock(PASS);
  const e0 = await epochOf(a0.dir);
  await expect(v.rotateKeys(PASS)).rejects.toThrow();
  await v.close();
  const a = await reopen({ dir: a0.dir, v }, 0);
  expect(await fs.readdir(path.join(a.dir, 'devices', me))).toEqual([e0.slice(0, 8)]);
  expect(await readsAll(a, { a0: 'a0', a1: 'a1', a2: 'a2' })).toEqual([]);
}, T);

// Found by this attack: when the engine kept B's passphrase change as vault.json and A's rotation header only as a
// conflict copy, what A wrote after its rotation (`a-new`) was lost. Now the rotation's header, when it ranks first,
// goes over an older epoch's vault.json (its key is in the keys file: headerfile-copies.ts `settle`), and when vault.json
// ranks first the passphrase opens it once through the rotation (`unwrapBest`, rivals.ts `keyThrough`). B's new
// passphrase may lose to the rotation (PASS then opens the vault): nothing written is lost either way.
for (const winner of ['rotation', 'passphrase'] as const) {
  it(`a rotation on A and a passphrase change on B made at once (the engine keeps the ${winner}'s vault.json, the other as a conflict copy): nothing either wrote is lost`, async () => {
    const cs = await computers(2);
    let [a, b] = cs as [Computer, Computer];
    await write(a, 'a0');
    await write(b, 'b0');
    await syncAll([a, b]);
    await a.v.rotateKeys(PASS);
    await write(a, 'a-new');
    await b.v.changePassphrase(PASS, 'second passphrase');
    await write(b, 'b-new');
    await syncAll([a, b]).catch(() => undefined);
    const [keep, copy] = winner === 'rotation' ? [a, b] : [b, a];
    const conflict = 'vault.sync-conflict-20261127-140000-ABCDEFG.json';
    for (const c of [a, b]) {
      const keepBytes = await fs.readFile(path.join(keep.dir, 'vault.json'));
      const copyBytes = await fs.readFile(path.join(copy.dir, 'vault.json'));
      await fs.writeFile(path.join(c.dir, 'vault.json'), keepBytes);
      await fs.writeFile(path.join(c.dir, conflict), copyBytes);
    }
    const names = { a0: 'a0', b0: 'b0', 'a-new': 'a-new', 'b-new': 'b-new' };
    const out: string[] = [];
    for (const [i, c] of [a, b].entries()) {
      await c.v.close();
      const v = await Vault.open(c.dir, { ...O, stateDir: path.join(room.root, `s${i}`) });
      mine.push(v);
      let how = '';
      for (const p of [PASS, 'second passphrase']) {
        try {
          await v.unlock(p);
          how = p;
          break;
        } catch (e) {
          how = `${how}${(e as Error).message} / `;
        }
      }
      const x = { dir: c.dir, v };
      if (i === 0) a = x;
      else b = x;
      // A's unlock settled vault.json (the rotation's header, ranking first, goes over the older epoch's): the engine
      // carries that newer write to B before B opens.
      if (i === 0) await fs.copyFile(path.join(a.dir, 'vault.json'), path.join(b.dir, 'vault.json'));
      out.push(`${i ? 'B' : 'A'} unlock: ${how}; missing: ${v.isUnlocked() ? JSON.stringify(await readsAll(x, names)) : 'locked'}`);
    }
    if (a.v.isUnlocked() && b.v.isUnlocked()) {
      await syncAll([a, b]).catch((e: Error) => out.push(`sync: ${e.message}`));
      for (const [i, c] of [a, b].entries()) out.push(`${i ? 'B' : 'A'} after sync: missing ${JSON.stringify(await readsAll(c, names).catch((e: Error) => [e.message]))}`);
    }
    console.log(`${winner} kept: ${out.join(' | ')}`);
    for (const c of [a, b]) expect(await readsAll(c, names)).toEqual([]);
  }, T);
}

it('emptying the trash after a rotation: a deleted memory B purged leaves no copy in any file on either computer (A\'s rotation sealed it again into its own pack)', async () => {
  const cs = await computers(2);
  let [a, b] = cs as [Computer, Computer];
  await write(b, 'secret', 'the secret text');
  await write(b, 'keep');
  await b.v.memory.remove('/memories/secret.md', 'user');
  await syncAll([a, b]);
  const before = new Set(liveBlobs(session(b.v).store.state).keys());
  await a.v.rotateKeys(PASS);
  await syncRelock([a, b]);
  expect(await b.v.emptyTrash()).toBe(1);
  const after = new Set(liveBlobs(session(b.v).store.state).keys());
  const purged = [...before].filter((id) => !after.has(id));
  expect(purged.length).toBe(1);
  // Both computers run on: every checkpoint, the old epoch closed, each compaction.
  for (let r = 0; r < 2; r++) {
    for (let i = 0; i < 6; i++) await write(a, `pad${i}`, `a ${r} ${i}`);
    await syncAll([a, b]);
    a = await reopen(a, 0);
    b = await reopen(b, 1);
    await syncAll([a, b]);
  }
  expect(await read(b, 'keep')).toBe('keep');
  const id = Buffer.from(purged[0]!, 'hex');
  const holding: string[] = [];
  for (const c of [a, b]) for (const f of await allFiles(path.join(c.dir, 'devices'))) if (f.bytes.includes(id)) holding.push(`${path.basename(c.dir)}:${f.rel}`);
  expect(holding).toEqual([]);
}, T);

it('after the rejoin, B\'s own compaction in the new epoch still removes its old files (its own blobs, sealed again only in A\'s pack, do not hold it back): its segments do not pile up', async () => {
  const { a, b, e1, bDev } = await rotated();
  await syncRelock([a, b]);
  for (let r = 0; r < 15; r++) for (let i = 0; i < 4; i++) await write(b, `later${i}`, `b ${r} ${i}`);
  await syncAll([a, b]);
  const names = await fs.readdir(dirOf(b, bDev, e1));
  const count = (k: string) => names.filter((n) => n.startsWith(k)).length;
  console.log(`B's folder of the new epoch after 60 writes: ${count('c-')} checkpoints, ${count('j-')} segments, ${count('p-')} packs`);
  // (Without a rotation, the same writes leave about 6 segments; before the fix, 30: none was ever removed.)
  expect(count('j-')).toBeLessThanOrEqual(8);
}, T);

/**
 * An I/O error before and after each write-side call of `steps` run on computer `me` (index 0 or 1) over the folder in
 * `dir`: then both computers open what is left and must read `names`, and `extra` once its step was done.
 */
async function errorsIn(dir: string, me: 0 | 1, names: Map<string, string>, steps: (v: Vault, done: (s: string) => void) => Promise<void>, extra: string) {
  return errorEach({
    root: room.root,
    base: await readImage(dir),
    me: { state: path.join(room.root, `s${me}`) },
    other: { state: path.join(room.root, `s${1 - me}`) },
    passphrase: PASS,
    opts: O,
    calls: 400,
    stride: FULL ? 1 : 5,
    op: async (fsx, stateDir, done) => {
      const v = await Vault.open(path.join(room.root, 'run'), { ...O, fs: fsx, stateDir });
      try {
        await v.unlock(PASS);
        await steps(v, done);
        await v.memory.writeFile(`/memories/${extra}.md`, extra, { mode: 'upsert', source: 'user' });
        done(extra);
      } finally {
        await v.close().catch(() => undefined);
      }
    },
    expect: (done) => new Map([...names, ...(done.has(extra) ? [[extra, extra] as [string, string]] : [])]),
  });
}

it('an I/O error at any write-side file-system call of A\'s rotation (before the call or after it) loses nothing: A and B, with B\'s offline writes, read every memory after', async () => {
  const { a, names } = await beforeRotation();
  const res = await errorsIn(a.dir, 0, names, async (v, done) => {
    await v.rotateKeys(PASS);
    done('rotated');
  }, 'anew');
  console.log(`I/O errors in a rotation: ${res.tried} injected, each opened by both computers`);
  expect(res.problems).toEqual([]);
}, 600_000);

it('an I/O error at any write-side file-system call of B\'s rejoin (its keys file, checkpoint, old files removed, a write) loses nothing on either computer', async () => {
  const { a, b, names } = await rotated();
  await a.v.close();
  await b.v.close();
  await mirror(a, b);
  await carryHeader(a.dir, b.dir);
  const res = await errorsIn(b.dir, 1, new Map(Object.entries(names)), async (_v, done) => done('unlock'), 'bnew');
  console.log(`I/O errors in a rejoin: ${res.tried} injected, each opened by both computers`);
  expect(res.problems).toEqual([]);
}, 600_000);

it('the old header left as a sync-conflict copy after a rotation: the old recovery key (or passphrase) then opens only the old epoch, and never puts the old header back as vault.json', async () => {
  const { a, b, names } = await rotated();
  const oldHeader = await fs.readFile(path.join(b.dir, 'vault.json'));
  await syncRelock([a, b]);
  await write(a, 'after', 'after the rotation');
  await syncAll([a, b]);
  await b.v.close();
  const conflict = 'vault.sync-conflict-20261127-150000-ABCDEFG.json';
  await fs.writeFile(path.join(b.dir, conflict), oldHeader);
  const newHeader = await fs.readFile(path.join(b.dir, 'vault.json'));
  const v = await Vault.open(b.dir, { ...O, stateDir: path.join(room.root, 's-thief') });
  mine.push(v);
  const opened = await v.unlockWithRecoveryKey(room.recovery).then(
    () => 'opened',
    (e: Error) => `refused: ${e.message}`,
  );
  console.log(`the old recovery key with the old header as a copy: ${opened}`);
  if (v.isUnlocked()) expect(await read({ dir: b.dir, v }, 'after').catch(() => 'hidden')).toBe('hidden');
  await v.close();
  expect(Buffer.compare(await fs.readFile(path.join(b.dir, 'vault.json')), newHeader)).toBe(0);
  const b2 = await reopen(b, 1);
  expect(await readsAll(b2, { ...names, after: 'after the rotation' })).toEqual([]);
}, T);
