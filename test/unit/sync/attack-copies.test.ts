/**
 * Attacks on the scanner reading sync engines' copies of segments (scan.ts `segmentCopy`, docs/sync-design.md §12.9):
 * files named `j-<12hex>-<8hex>` and any suffix in a device folder — junk, FIFOs, links, folders, byte copies of a
 * segment in the folder of a computer that never forked, another device's segment renamed in. A test marked
 * `it.fails` is a finding: its comment says what breaks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { type Computer, session, syncAll, vaultRoom } from './carry-vaults';

const { computers, reopen } = vaultRoom('attack-copies');

const note = (v: Computer['v'], p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });
const MARK = '.sync-conflict-20261127-120000-ABCDEFG';

/** The folder of `c`'s own device on `at` (c's vault folder unless given), and its segment names. */
async function ownFolder(c: Computer, at = c.dir): Promise<{ folder: string; segs: string[] }> {
  const me = (await c.v.internal.device!(false))!;
  const base = path.join(at, 'devices', me);
  const folder = path.join(base, (await fs.readdir(base))[0]!);
  const segs = (await fs.readdir(folder)).filter((n) => /^j-[0-9a-f]{12}-[0-9a-f]{8}$/.test(n)).sort();
  return { folder, segs };
}

/** Two computers, A wrote a note every one has; A's folder on B. */
async function twoWithNote(): Promise<{ a: Computer; b: Computer; aOnB: { folder: string; segs: string[] } }> {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await note(a.v, '/memories/a0.md', 'a0');
  await syncAll([a, b]);
  return { a, b, aOnB: await ownFolder(a, b.dir) };
}

// FINDING (high, with the lock-out below; fixed: scan.ts reads regular files only): a FIFO named like a segment's copy (`j-…-….x`) in any device folder makes every ingest throw
// ("not a regular file", EINVAL: nodeFs.readFile refuses it, and FolderScanner.scan rethrows what is not a wait
// error): whoever can write the synced folder stops sync on every computer. (A FIFO at a segment's own name did so
// before; the copies' names make any `j-…-…<anything>` such a name.) The copy's own rule ("any file may carry
// such a name ... is neither damage nor something still arriving") is not kept for a file that is not a regular one.
it('a FIFO named like a copy of a segment does not stop ingest', async () => {
  const { a, b, aOnB } = await twoWithNote();
  execFileSync('mkfifo', [path.join(aOnB.folder, `${aOnB.segs[0]}${MARK}`)]);
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b]);
  expect(await b.v.memory.readFile('/memories/a1.md')).toBe('a1');
  expect((await b.v.verify()).ok).toBe(true);
}, 30_000);

// FINDING (high; fixed as above): the same with a symlink named like a copy pointing at /dev/zero (or any non-regular
// file).
it('a symlink to /dev/zero named like a copy does not stop ingest', async () => {
  const { a, b, aOnB } = await twoWithNote();
  await fs.symlink('/dev/zero', path.join(aOnB.folder, `${aOnB.segs[0]} (conflicted copy)`));
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b]);
  expect(await b.v.memory.readFile('/memories/a1.md')).toBe('a1');
  expect((await b.v.verify()).ok).toBe(true);
}, 30_000);

// FINDING (high, lock-out; fixed as above): with such a FIFO in another device's folder, the computer cannot open the vault any more
// (unlock reads every device folder and throws "Could not read the vault."): a junk file anyone writing the synced
// folder can drop locks every computer out until someone finds and deletes it by hand.
it('a computer opens its vault with a FIFO named like a copy of a segment in a device folder', async () => {
  const { b, aOnB } = await twoWithNote();
  execFileSync('mkfifo', [path.join(aOnB.folder, `${aOnB.segs[0]}${MARK}`)]);
  const again = await reopen(b, 1);
  expect(await again.v.memory.readFile('/memories/a0.md')).toBe('a0');
}, 30_000);

it('held: a folder named like a copy is passed over', async () => {
  const { a, b, aOnB } = await twoWithNote();
  await fs.mkdir(path.join(aOnB.folder, `${aOnB.segs[0]} 2`));
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b]);
  expect(await b.v.memory.readFile('/memories/a1.md')).toBe('a1');
  expect(await b.v.verify()).toEqual({ ok: true, problems: [] });
}, 30_000);

it("held: another device's segment renamed as a copy into A's folder neither authenticates nor counts as damage", async () => {
  const { a, b, aOnB } = await twoWithNote();
  await note(b.v, '/memories/b0.md', 'b0');
  const bOwn = await ownFolder(b);
  await fs.copyFile(path.join(bOwn.folder, bOwn.segs.at(-1)!), path.join(aOnB.folder, `${aOnB.segs[0]}${MARK}`));
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b]);
  for (const c of [a, b]) {
    expect(await c.v.memory.readFile('/memories/a1.md')).toBe('a1');
    expect(await c.v.memory.readFile('/memories/b0.md')).toBe('b0');
    expect(await c.v.verify()).toEqual({ ok: true, problems: [] });
  }
}, 30_000);

it('held: a byte copy (whole, and an older prefix) of its own segment in the own folder of a computer that never forked: it goes on, no give-way', async () => {
  const cs = (await computers(2)) as [Computer, Computer];
  const b = cs[1];
  let a = cs[0];
  await note(a.v, '/memories/a0.md', 'a0');
  const me = await a.v.internal.device!(false);
  const own = await ownFolder(a);
  const last = own.segs.at(-1)!;
  // An older prefix (after a0), then a whole copy (after a1).
  await fs.copyFile(path.join(own.folder, last), path.join(own.folder, `${last} (conflicted copy 2026-11-27)`));
  await note(a.v, '/memories/a1.md', 'a1');
  await fs.copyFile(path.join(own.folder, last), path.join(own.folder, `${last}${MARK}`));
  await syncAll([a, b]);
  a = await reopen(a, 0);
  await note(a.v, '/memories/a2.md', 'a2');
  await syncAll([a, b]);
  for (const c of [a, b]) {
    for (const n of ['a0', 'a1', 'a2']) expect(await c.v.memory.readFile(`/memories/${n}.md`)).toBe(n);
    expect(await c.v.verify()).toEqual({ ok: true, problems: [] });
  }
  // Still the same computer: no give-way, no new id.
  expect(await a.v.internal.device!(false)).toBe(me);
  expect(session(a.v).store.left).toBeUndefined();
}, 60_000);

it('held: 2000 junk files named like copies (empty, short, random) neither crash nor fail verify; read once, not at each ingest', async () => {
  const { a, b, aOnB } = await twoWithNote();
  const seg = aOnB.segs[0]!;
  for (let i = 0; i < 2000; i++) await fs.writeFile(path.join(aOnB.folder, `${seg}.junk-${i}`), i % 3 ? Buffer.alloc(i % 300, i) : '');
  await b.v.ingest();
  const t0 = Date.now();
  for (let i = 0; i < 5; i++) await b.v.ingest();
  const each = (Date.now() - t0) / 5;
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b]);
  expect(await b.v.memory.readFile('/memories/a1.md')).toBe('a1');
  expect(await b.v.verify()).toEqual({ ok: true, problems: [] });
  expect(each).toBeLessThan(2000);
}, 120_000);

// ---------------------------------------------------------------------------------------------------------------
// The redo after give-way (vault2.ts `redoDropped`), with an engine that keeps conflict copies (as Syncthing does).

const { cloned, computers: computers3, reopen: reopen3 } = vaultRoom('attack-copies-redo');

/** As attack-lose.test.ts: keeps the local file under a conflict name when both sides changed it. */
async function carryKeepingConflicts(from: string, to: string): Promise<void> {
  for (const rel of (await fs.readdir(from, { recursive: true })) as string[]) {
    if (!rel.startsWith('devices')) continue;
    const src = path.join(from, rel);
    if (!(await fs.stat(src)).isFile()) continue;
    const bytes = await fs.readFile(src);
    const dst = path.join(to, rel);
    const old = await fs.readFile(dst).catch(() => undefined);
    if (old && (old.equals(bytes) || old.subarray(0, bytes.length).equals(bytes))) continue;
    await fs.mkdir(path.dirname(dst), { recursive: true });
    if (old && !bytes.subarray(0, old.length).equals(old)) await fs.writeFile(`${dst}.sync-conflict-20261127-120000-ABCDEFG`, old);
    await fs.writeFile(dst, bytes);
  }
}
async function carryAll(all: Computer[]): Promise<void> {
  for (let round = 0; round < 3; round++) {
    for (const x of all) for (const y of all) if (x !== y) await carryKeepingConflicts(x.dir, y.dir);
    for (const x of all) await x.v.ingest();
  }
}
const read = (x: Computer, p: string) => x.v.memory.readFile(p).catch(() => '-');

it('held: the clone that gives way writes again a 1 MB memory it wrote on its branch; every computer has it', async () => {
  const cs = await computers3(2);
  const a = cs[0]!;
  const { b, clone } = await cloned(cs);
  const big = `${'m'.repeat(1 << 20)}\n`;
  await note(b.v, '/memories/from-b.md', 'b');
  await note(clone.v, '/memories/big.md', big);
  await carryAll([a, b, clone]);
  for (const x of [a, b, clone]) expect((await read(x, '/memories/big.md')).length).toBe(big.length);
}, 60_000);

// FINDING (high, divergence; the memory's own computer loses it): B and a clone of B (carry-vaults `cloned`) write at
// seq 3, B `/memories/dir/inner.md`, the clone `/memories/dir` (a file where B made a folder); an engine that keeps
// conflict copies carries them. B gives way: its view follows the clone's branch (it shows the clone's `/memories/dir`
// file), and its redo of inner.md fails (the path's folder is a file there: redoLost 1). A and the clone follow B's
// original record: they show inner.md and not the clone's file. The computers disagree for good (three more rounds,
// two reopens of the clone), B's own memory is missing on B, and verify on A is clean. What held: from-clone.md is
// written again once, not at every open of the clone (its versions on A stay as they were).
it.fails('a clone and B writing a file and a folder at one path at one seq: every computer ends showing the same memories', async () => {
  const cs = await computers3(2);
  const a = cs[0]!;
  const { b, clone: c0 } = await cloned(cs);
  let clone = c0;
  await note(b.v, '/memories/dir/inner.md', 'b inner');
  await note(clone.v, '/memories/dir', 'clone file at a folder path');
  await note(clone.v, '/memories/from-clone.md', 'clone');
  await carryAll([a, b, clone]);
  const count = () => a.v.versions('/memories/from-clone.md').length;
  const first = count();
  for (let i = 0; i < 2; i++) {
    clone = await reopen3(clone, 2);
    await carryAll([a, b, clone]);
  }
  for (const x of [a, b, clone]) expect(await read(x, '/memories/from-clone.md')).toBe('clone');
  expect(count()).toBe(first);
  const shown = async (x: Computer) => [await read(x, '/memories/dir'), await read(x, '/memories/dir/inner.md')];
  expect(await shown(b)).toEqual(await shown(a));
  expect(await shown(clone)).toEqual(await shown(a));
  expect(await read(b, '/memories/dir/inner.md')).toBe('b inner');
}, 60_000);
