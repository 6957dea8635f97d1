/**
 * Attacks the patched view of format 2 (sync/view.ts: an own write, delete or move of one file brings the view up to
 * date in place, and carries the vault's total size over) with a seeded random run over two computers: writes (some
 * near the size limits), creates, deletes, moves, folders, restores from the trash and of old versions, emptying the
 * trash, history depth changes, internal values, syncs, records carried but not yet ingested, writes raced with an
 * ingest or with each other, and reopens; on look-alike paths (case, NFC/NFD, trailing dot or space, a file and a
 * folder of one name, names that sort next to each other, deep folders, the name a file would step aside to, empty
 * and dot segments).
 *
 * After every step, what the computer shows (list, stat, every version of every file and trash entry, the trash, the
 * conflicts, the total size the limits use) is compared with a view built from scratch of the same state; every size
 * limit decision with the one that total gives; and now and then (and at the end) everything a user reads (texts too)
 * with a fresh open of a copy of its folders. Half of the run has MNEMO_VIEW_CHECK off, as in production: then this
 * test is the only check. MNEMO_DEEP=1 runs more seeds and steps; MNEMO_SEED replays one.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { sizeProblem } from '../../../electron/core/memory/limits';
import { asideName } from '../../../electron/core/vault/sync/tree';
import { SyncView } from '../../../electron/core/vault/sync/view';
import type { SyncSession } from '../../../electron/core/vault/sync/session2';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';
import { carry, FLOOR, PASS } from './two-computers';
import { carryRemovals } from './carry-vaults';

let root = '';
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-view-fuzz-'));
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const session = (v: Vault) => (v as unknown as { session2: SyncSession }).session2;
type Reader = ConstructorParameters<typeof SyncView>[1];

const M = '/memories';
const FILES = [
  `${M}/a`,
  `${M}/a.md`,
  `${M}/a.md.`,
  `${M}/a-md`,
  `${M}/A.md`,
  `${M}/a/b.md`,
  `${M}/a/c.md`,
  `${M}/a/b`,
  `${M}/a/b/c.md`,
  `${M}/caf\u00e9.md`,
  `${M}/cafe\u0301.md`,
  `${M}/x `,
  `${M}/x`,
  `${M}/d1/d2/d3/d4/d5/d6/f.md`,
  `${M}/d1/d2`,
  `${M}/t.md`,
  `${M}/t.md/u.md`,
  `${M}/a/`,
  `${M}//x`,
  `${M}/a/./b.md`,
];
const DIRS = [`${M}/a`, `${M}/a/b`, `${M}/d1`, `${M}/d1/d2`, `${M}/d1/d2/d3/d4`, `${M}/n`, `${M}/t.md`];
const LIMITS = { maxFileBytes: 3000, maxVaultBytes: 9000 };

interface Computer {
  i: number;
  dir: string;
  state: string;
  v: Vault;
}

let recovery = '';
const optsOf = (c: { state: string; i: number }) => ({ stateDir: c.state, format2: true, ackDelayMs: 0, journalLimit: c.i === 0 ? 1000 : 6 });

async function openAs(i: number): Promise<Computer> {
  const c = { i, dir: path.join(root, `v${i}`), state: path.join(root, `s${i}`) };
  const v = await Vault.open(c.dir, optsOf(c));
  await v.unlockWithRecoveryKey(recovery);
  opened.push(v);
  return { ...c, v };
}

async function close(c: Computer): Promise<void> {
  await c.v.close();
  opened.splice(opened.indexOf(c.v), 1);
}

/** What a view shows, every part of it a user can reach. */
function shownBy(v: SyncView): unknown {
  const groups = [...v.tree.groups.keys()].sort();
  return {
    list: v.list(M, 100),
    groups: groups.map((p) => ({ p, stat: v.stat(p), versions: v.versions(p) })),
    trash: v.trashed(),
    conflicts: v.conflicts(),
    total: v.totalSize(),
  };
}

/**
 * The view a computer shows now against one built from scratch of its state. A view may lag behind the state where the
 * store ingested on its own (a read or a compaction learning where bytes lie: ckpt-read.ts `learnIndexes`); it must
 * then be built again (never patched) by the next write, and shown by the next ingest: taken here first.
 */
async function checkView(c: Computer, step: string, done: Record<string, number>): Promise<void> {
  let s = session(c.v);
  if (!(s as unknown as { viewCurrent(): boolean }).viewCurrent()) {
    done['view behind the state'] = (done['view behind the state'] ?? 0) + 1;
    await c.v.ingest();
    s = session(c.v);
  }
  if (s.view.patched) done['patched view checked'] = (done['patched view checked'] ?? 0) + 1;
  const fresh = new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader);
  const a = JSON.stringify(shownBy(s.view));
  const b = JSON.stringify(shownBy(fresh));
  if (a !== b) expect({ step, shown: shownBy(s.view) }).toEqual({ step, shown: shownBy(fresh) });
  // The total the limits use is what the files listed hold, each once.
  const sum = s.view.list(M, 100).reduce((n, e) => n + (e.kind === 'file' ? e.size : 0), 0);
  expect({ step, total: s.view.totalSize() }).toEqual({ step, total: sum });
}

/** Everything a user reads of vault `v`, texts included. */
async function userDump(v: Vault): Promise<unknown> {
  const files: unknown[] = [];
  for (const e of v.memory.list(M, 100)) {
    if (e.kind !== 'file') continue;
    files.push({ p: e.path, text: await v.memory.readFile(e.path).catch((err: VaultError) => `! ${err.code}`), history: v.history(e.path), versions: v.versions(e.path) });
  }
  return { list: v.memory.list(M, 100), files, trash: v.trash(), total: v.memory.totalSize(), conflicts: v.conflicts(), depth: v.historyDepth() };
}

/** A fresh open of a copy of `c`'s vault and state folders shows what `c` shows. */
async function checkFreshOpen(c: Computer, n: number, step: string): Promise<void> {
  const copy = { i: c.i, dir: path.join(root, `copy${n}`), state: path.join(root, `copy${n}s`) };
  await fs.cp(c.dir, copy.dir, { recursive: true });
  await fs.cp(c.state, copy.state, { recursive: true });
  const v = await Vault.open(copy.dir, { ...optsOf(copy), readOnly: true });
  opened.push(v);
  try {
    await v.unlockWithRecoveryKey(recovery);
    expect({ step, dump: await userDump(c.v) }).toEqual({ step, dump: await userDump(v) });
  } finally {
    await v.close();
    opened.splice(opened.indexOf(v), 1);
    await fs.rm(copy.dir, { recursive: true, force: true });
    await fs.rm(copy.state, { recursive: true, force: true });
  }
}

/** Carries one computer's files to the other's folder (removals too, as a sync engine does), ingesting or not. */
async function mirror(from: Computer, to: Computer): Promise<void> {
  await carry(from.dir, to.dir);
  await carryRemovals(from, to);
}

const expected = new Set(['EXISTS', 'NOT_FOUND', 'NOT_A_DIRECTORY', 'NOT_A_FILE', 'INVALID', 'LIMIT', 'CONFLICT']);

async function run(seed: number, steps: number): Promise<{ done: Record<string, number> }> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const made = await Vault.create(path.join(root, 'v0'), PASS, { kdf: FLOOR, stateDir: path.join(root, 's0'), format2: true, ackDelayMs: 0 });
  recovery = made.recoveryKey;
  await made.vault.close();
  await fs.cp(path.join(root, 'v0'), path.join(root, 'v1'), { recursive: true });
  const cs = [await openAs(0), await openAs(1)];
  const done: Record<string, number> = {};
  const text = () => {
    const r = rnd();
    const n = r < 0.6 ? Math.floor(rnd() * 60) : r < 0.9 ? Math.floor(rnd() * 1500) : 2000 + Math.floor(rnd() * 1500);
    return `${seed}:${Math.floor(rnd() * 1e6)} `.padEnd(n, 'x');
  };
  const allowed = async (what: string, p: Promise<unknown>) => {
    try {
      await p;
      done[what] = (done[what] ?? 0) + 1;
    } catch (e) {
      if (!(e instanceof VaultError && expected.has(e.code))) throw e;
      done[`${what} refused`] = (done[`${what} refused`] ?? 0) + 1;
    }
  };
  const sync = async () => {
    for (const [a, b] of [cs, [cs[1]!, cs[0]!]] as Array<[Computer, Computer]>) await mirror(a, b);
    for (const c of cs) await c.v.ingest();
  };
  let freshOpens = 0;
  const env = process.env.MNEMO_VIEW_CHECK;
  try {
    for (let n = 0; n < steps; n++) {
      // The second half as in production: no check inside the view, only this test's.
      if (n === Math.floor(steps / 2)) process.env.MNEMO_VIEW_CHECK = '0';
      const c = pick(cs);
      const other = cs[1 - c.i]!;
      const mem = c.v.memory;
      const user = { source: 'user' } as const;
      const r = rnd();
      let step = '';
      if (r < 0.3) {
        // Now and then the name a file would step aside to if a folder took its path (tree.ts `asideName`).
        const fileAt = rnd() < 0.12 ? pick([...FILES, ...DIRS]) : undefined;
        const fid = fileAt === undefined ? undefined : session(c.v).view.fidAt(fileAt);
        const p = fileAt !== undefined && fid !== undefined ? asideName(fileAt, fid) : pick(FILES);
        const t = text();
        const limits = rnd() < 0.5 ? LIMITS : undefined;
        step = `write ${JSON.stringify(p)} ${t.length}${limits ? ' limited' : ''}`;
        // The limit decides as the total of a view built from scratch would.
        const s = session(c.v);
        const fresh = new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader);
        const old = fresh.stat(p);
        const refuse = limits && !fresh.isDir(p) && !!sizeProblem(p, Buffer.byteLength(t), old?.kind === 'file' ? old.size : 0, fresh.totalSize(), limits);
        let code = 'ok';
        try {
          await mem.writeFile(p, t, { mode: 'upsert', ...user, ...(limits ? { limits } : {}) });
        } catch (e) {
          if (!(e instanceof VaultError && expected.has(e.code))) throw e;
          code = e.code;
        }
        done[`write ${code}`] = (done[`write ${code}`] ?? 0) + 1;
        if (limits && (code === 'ok' || code === 'LIMIT')) expect({ step, refused: code === 'LIMIT' }).toEqual({ step, refused: refuse });
      } else if (r < 0.38) {
        const p = pick(FILES);
        step = `create ${JSON.stringify(p)}`;
        await allowed('create', mem.writeFile(p, text(), { mode: 'create', ...user }));
      } else if (r < 0.5) {
        const shown = mem.list(M, 100).map((e) => e.path);
        const p = rnd() < 0.5 && shown.length ? pick(shown) : rnd() < 0.75 ? pick(FILES) : pick(DIRS);
        step = `remove ${JSON.stringify(p)}`;
        await allowed('remove', mem.remove(p, 'user'));
      } else if (r < 0.62) {
        const shown = mem.list(M, 100).map((e) => e.path);
        const from = rnd() < 0.7 && shown.length ? pick(shown) : rnd() < 0.8 ? pick(FILES) : pick(DIRS);
        const to = rnd() < 0.8 ? pick(FILES) : pick(DIRS);
        step = `rename ${JSON.stringify(from)} ${JSON.stringify(to)}`;
        await allowed('rename', mem.rename(from, to, 'user'));
      } else if (r < 0.65) {
        const p = pick(DIRS);
        step = `mkdir ${JSON.stringify(p)}`;
        await allowed('mkdir', mem.mkdir(p, 'user'));
      } else if (r < 0.7) {
        const t = c.v.trash();
        const e = t.length ? pick(t) : undefined;
        step = `restoreDeleted ${JSON.stringify(e?.path)}`;
        // (DAMAGED too: a trashed version the other computer purged and compacted away, its purge not ingested here yet;
        // seen on seed 1009 of a deep run.)
        if (e) await allowed('restoreDeleted', c.v.restoreDeleted(e.path, rnd() < 0.5 ? undefined : pick(e.versions).version, rnd() < 0.5 ? LIMITS : undefined).catch((x) => (x instanceof VaultError && x.code === 'DAMAGED' ? undefined : Promise.reject(x))));
      } else if (r < 0.73) {
        const files = mem.list(M, 100).filter((e) => e.kind === 'file');
        const f = files.length ? pick(files) : undefined;
        const h = f ? c.v.history(f.path) : [];
        step = `restore version ${JSON.stringify(f?.path)}`;
        // (DAMAGED too: a version the other computer forgot and compacted away, its forget not ingested here yet.)
        if (f && h.length) await allowed('restore', c.v.restore(f.path, pick(h).version, 'user', rnd() < 0.5 ? LIMITS : undefined).catch((e) => (e instanceof VaultError && e.code === 'DAMAGED' ? undefined : Promise.reject(e))));
      } else if (r < 0.75) {
        const t = c.v.trash();
        step = 'emptyTrash';
        await allowed('emptyTrash', c.v.emptyTrash(rnd() < 0.5 || !t.length ? undefined : [pick(t).path]));
      } else if (r < 0.77) {
        const d = Math.floor(rnd() * 4);
        step = `depth ${d}`;
        await allowed('depth', c.v.setHistoryDepth(d));
      } else if (r < 0.8) {
        step = 'kput';
        await allowed('kput', c.v.internal.putJSON(`k/${Math.floor(rnd() * 3)}`, { n }));
      } else if (r < 0.87) {
        step = 'sync';
        await sync();
        done.sync = (done.sync ?? 0) + 1;
      } else if (r < 0.9) {
        // The other computer's records are in this folder, not yet ingested: a write races the ingest that takes them.
        step = 'carry + write racing an ingest';
        await mirror(other, c);
        const p = pick(FILES);
        await Promise.all([allowed('raced write', mem.writeFile(p, text(), { mode: 'upsert', ...user })), c.v.ingest()]);
      } else if (r < 0.94) {
        // Two changes queued at once on one computer (one file, or a file and its new name).
        const p = pick(FILES);
        const q = pick(FILES);
        const kind = Math.floor(rnd() * 4);
        step = `pair ${kind} ${JSON.stringify(p)} ${JSON.stringify(q)}`;
        const first = kind === 3 ? mem.remove(p, 'user') : mem.writeFile(p, text(), { mode: 'upsert', ...user });
        const second = kind === 0 ? mem.writeFile(p, text(), { mode: 'upsert', ...user }) : kind === 1 ? mem.rename(p, q, 'user') : kind === 2 ? mem.remove(p, 'user') : mem.writeFile(p, text(), { mode: 'create', ...user });
        await Promise.all([allowed('pair 1', first), allowed('pair 2', second)]);
      } else if (r < 0.96) {
        step = 'carry only';
        await mirror(other, c);
      } else if (r < 0.98) {
        step = `reopen ${c.i}`;
        await close(c);
        cs[c.i] = await openAs(c.i);
        done.reopen = (done.reopen ?? 0) + 1;
        continue;
      } else {
        step = `fresh open ${c.i}`;
        // (Its folder may hold the other's records carried but not ingested yet: a fresh open would show them.)
        await c.v.ingest();
        await checkView(c, `${n} ${step}`, done);
        await checkFreshOpen(c, freshOpens++, `${n} ${step}`);
      }
      await checkView(c, `${n} ${step}`, done);
    }
    await sync();
    await sync();
    for (const c of cs) await checkView(c, 'end', done);
    for (const c of cs) await checkFreshOpen(c, freshOpens++, `end ${c.i}`);
    expect(await userDump(cs[0]!.v)).toEqual(await userDump(cs[1]!.v));
  } finally {
    process.env.MNEMO_VIEW_CHECK = env;
  }
  return { done };
}

const SEEDS = DEEP ? 12 : 1;
const STEPS = DEEP ? 600 : 200;

it('seeded random runs over two computers: every view shows what a view built from scratch and a fresh open show', async () => {
  const seeds = [FIXED_SEED, randomSeed('attack-view-fuzz'), ...Array.from({ length: SEEDS - 1 }, (_, k) => 1000 + k)];
  for (const seed of seeds) {
    try {
      const { done } = await run(seed, STEPS);
      console.log(`attack-view-fuzz seed ${seed}: ${JSON.stringify(done)}`);
    } catch (e) {
      console.log(`attack-view-fuzz: seed ${seed} failed (replay with MNEMO_SEED=${seed})`);
      throw e;
    } finally {
      for (const v of opened.splice(0)) await v.close().catch(() => undefined);
      for (const f of await fs.readdir(root)) await fs.rm(path.join(root, f), { recursive: true, force: true });
    }
  }
}, 600_000);
