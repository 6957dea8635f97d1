/**
 * Helpers of the attacks on key rotation (attack-rotate.test.ts): vault folders as crash-simulator images and back,
 * the header carried by its counter, epoch folders, and a power cut after each file-system call of a computer's open
 * (its rejoin of a new epoch: keys file, checkpoint, removal of its old files) checked by what every acknowledged
 * write reads as afterwards, on that computer and on the other one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import type { OpenMode, VaultFs } from '../../../electron/core/vault/fsio';
import { SimFs, type Image, type Outcome } from '../vault/sim-fs';

/** A real folder as an image (files only, by name). */
export async function readImage(dir: string): Promise<Image> {
  const out: Image = new Map();
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.set(e.name, await readImage(p));
    else if (e.isFile()) out.set(e.name, new Uint8Array(await fs.readFile(p)));
  }
  return out;
}

/** vault.json from `from` to `to` when its counter is higher (a sync engine brings the newer header). */
export async function carryHeader(from: string, to: string): Promise<void> {
  const count = async (d: string) => ((JSON.parse(await fs.readFile(path.join(d, 'vault.json'), 'utf8')) as { counter?: number }).counter ?? 0);
  if ((await count(from)) > (await count(to))) await fs.copyFile(path.join(from, 'vault.json'), path.join(to, 'vault.json'));
}

/** The epoch folders (first 8 hex) that hold files, by device, in `dir`. */
export async function epochFolders(dir: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const dev of await fs.readdir(path.join(dir, 'devices')).catch(() => [] as string[])) {
    for (const ep of await fs.readdir(path.join(dir, 'devices', dev)).catch(() => [] as string[])) {
      if ((await fs.readdir(path.join(dir, 'devices', dev, ep)).catch(() => [])).length) out.add(ep);
    }
  }
  return out;
}

export const epochOf = async (dir: string): Promise<string> => (JSON.parse(await fs.readFile(path.join(dir, 'vault.json'), 'utf8')) as { manifest: string }).manifest;

/** The files under `devices/<dev>/<ep8>/` of an image (names only). */
export function imageFolder(image: Image, dev: string, ep: string): string[] {
  const devs = image.get('devices');
  const d = devs instanceof Map ? devs.get(dev) : undefined;
  const e = d instanceof Map ? d.get(ep.slice(0, 8)) : undefined;
  return e instanceof Map ? [...e.keys()].sort() : [];
}

/** A copy of a state folder as a power cut leaves it (no temp marks, no lock holder). */
async function stateCopy(from: string, root: string): Promise<string> {
  const to = await fs.mkdtemp(path.join(root, 'state-'));
  await fs.cp(from, to, { recursive: true, filter: (src) => !src.endsWith('.tmp') && path.basename(src) !== 'locks' });
  return to;
}

export interface Side {
  /** The state folder of this computer (its device id, marks), as it was before the op. */
  state: string;
}

/** What each memory name must read as (`/memories/<name>.md`). */
export type Expect = Map<string, string>;

/**
 * Opens `image` as the computer of state folder `state` (a copy), unlocks it with passphrase `recovery`, checks it verifies and
 * reads every expected memory; returns the image it leaves after closing (what its open wrote: a rejoin, a removal).
 */
async function openCheck(root: string, image: Image, state: string, recovery: string, expect: Expect, o: OpenOptions, what: string, problems: string[]): Promise<Image> {
  const dir = path.join(root, 'check');
  await fs.mkdir(dir, { recursive: true });
  const sim = new SimFs(dir, image);
  const stateDir = await stateCopy(state, root);
  try {
    const v = await Vault.open(dir, { ...o, fs: sim, stateDir });
    try {
      await v.unlock(recovery);
      const r = await v.verify();
      if (!r.ok) problems.push(`${what}: verify: ${r.problems.join('; ')}`);
      for (const [name, text] of expect) {
        const got = await v.memory.readFile(`/memories/${name}.md`).catch((e: Error) => `<${e.message}>`);
        if (got !== text) problems.push(`${what}: ${name} reads ${JSON.stringify(got.slice(0, 80))}, not ${JSON.stringify(text)}`);
      }
    } finally {
      await v.close();
    }
  } catch (e) {
    problems.push(`${what}: ${(e as Error).message}`);
  } finally {
    await fs.rm(stateDir, { recursive: true, force: true });
  }
  return sim.image('kept');
}

/**
 * A power cut after every `stride`-th file-system call of `op`, run on computer `me` (its folder `base`, its state
 * folder `me.state`, which the op uses and changes): each crash image (unsynced folder changes kept and lost) is
 * opened by `me` again, then by `other` (as after the sync engine brought it every file), then by `me` once more,
 * each reading every memory of `expect(done)`, `done` the steps of `op` that had returned at the cut.
 */
export async function crashRejoin(o: {
  root: string;
  base: Image;
  me: Side;
  other: Side;
  /** The passphrase (the same before and after a rotation). */
  recovery: string;
  opts: OpenOptions;
  op: (sim: SimFs, stateDir: string, done: (step: string) => void) => Promise<void>;
  expect: (done: ReadonlySet<string>) => Expect;
  stride: number;
}): Promise<{ points: number; calls: number; problems: string[]; final: Image }> {
  const run = path.join(o.root, 'run');
  await fs.mkdir(run, { recursive: true });
  const stateDir = await stateCopy(o.me.state, o.root);
  const sim = new SimFs(run, o.base);
  const done = new Set<string>();
  const problems: string[] = [];
  let points = 0;
  sim.after = async (n, what) => {
    if (n % o.stride !== 0) return;
    points++;
    const exp = o.expect(new Set(done));
    // The state folder as the op left it at the cut (marks and identity).
    const frozen = await stateCopy(stateDir, o.root);
    try {
      for (const outcome of ['kept', 'lost'] as Outcome[]) {
        const at = `call ${n} (${what}) ${outcome} [${[...done].join(',')}]`;
        let img = await openCheck(o.root, sim.image(outcome), frozen, o.recovery, exp, o.opts, `${at}: reopened`, problems);
        img = await openCheck(o.root, img, o.other.state, o.recovery, exp, o.opts, `${at}: the other computer`, problems);
        await openCheck(o.root, img, frozen, o.recovery, exp, o.opts, `${at}: reopened after the other`, problems);
      }
    } finally {
      await fs.rm(frozen, { recursive: true, force: true });
    }
  };
  await o.op(sim, stateDir, (s) => done.add(s));
  sim.after = undefined;
  const calls = sim.calls;
  const final = sim.image('lost');
  await openCheck(o.root, final, stateDir, o.recovery, o.expect(done), o.opts, 'after the op', problems);
  return { points, calls, problems, final };
}

/** Copies the files under `devices/` of `from` that `to` lacks or has shorter, except those `skip` names (relative paths). */
export async function carrySome(from: string, to: string, skip: (rel: string) => boolean): Promise<string[]> {
  const skipped: string[] = [];
  for (const rel of (await fs.readdir(path.join(from, 'devices'), { recursive: true })) as string[]) {
    const src = path.join(from, 'devices', rel);
    if (!(await fs.stat(src)).isFile()) continue;
    if (skip(rel)) {
      skipped.push(rel);
      continue;
    }
    const bytes = await fs.readFile(src);
    const dst = path.join(to, 'devices', rel);
    const old = await fs.readFile(dst).catch(() => undefined);
    if (old && old.length >= bytes.length) continue;
    await fs.mkdir(path.dirname(dst), { recursive: true });
    await fs.writeFile(dst, bytes);
  }
  return skipped;
}

/** Every file under `dir` (recursive), with its bytes. */
export async function allFiles(dir: string): Promise<Array<{ rel: string; bytes: Buffer }>> {
  const out: Array<{ rel: string; bytes: Buffer }> = [];
  for (const rel of (await fs.readdir(dir, { recursive: true }).catch(() => [])) as string[]) {
    const p = path.join(dir, rel);
    const st = await fs.lstat(p);
    if (st.isFile()) out.push({ rel, bytes: await fs.readFile(p) });
  }
  return out;
}


/** A simulated disk whose `n`th call fails with EIO, before doing anything or after doing it (`after`). */
export function failingAt(sim: SimFs, n: number, after: boolean): VaultFs & { fired: string | undefined } {
  let calls = 0;
  const out = { fired: undefined as string | undefined } as VaultFs & { fired: string | undefined };
  const wrap = <A extends unknown[], R>(what: string, fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (++calls !== n) return fn(...a);
      out.fired = `${what} ${after ? 'after' : 'before'}`;
      if (after) await fn(...a);
      throw Object.assign(new Error('EIO (injected)'), { code: 'EIO' });
    };
  out.open = wrap('open', (f: string, m: OpenMode) => sim.open(f, m));
  out.readFile = (f) => sim.readFile(f);
  out.rename = wrap('rename', (a: string, b: string) => sim.rename(a, b));
  out.unlink = wrap('unlink', (f: string) => sim.unlink(f));
  out.rmdir = wrap('rmdir', (f: string) => sim.rmdir(f));
  out.mkdir = wrap('mkdir', (f: string) => sim.mkdir(f));
  out.readdir = (f) => sim.readdir(f);
  out.stat = (f) => sim.stat(f);
  out.syncDir = wrap('syncDir', (f: string) => sim.syncDir(f));
  return out;
}

/**
 * An I/O error at each write-side file-system call of `op` (before the call and after it), on computer `me` over
 * `base`: the op fails or not, the computer opens the disk again with its state folder as the op left it, then the
 * other computer, each reading every memory of `expect(done)`.
 */
export async function errorEach(o: {
  root: string;
  base: Image;
  me: Side;
  other: Side;
  passphrase: string;
  opts: OpenOptions;
  /** At most this many calls are tried (each twice). */
  calls: number;
  /** Every how many calls one is tried (1: each; `npm test` samples, `MNEMO_DEEP=1` tries each). */
  stride?: number;
  op: (fsx: VaultFs, stateDir: string, done: (step: string) => void) => Promise<void>;
  expect: (done: ReadonlySet<string>) => Expect;
}): Promise<{ tried: number; problems: string[] }> {
  const problems: string[] = [];
  let tried = 0;
  for (let n = 1; n <= o.calls; n += o.stride ?? 1) {
    for (const after of [false, true]) {
      const run = path.join(o.root, 'run');
      await fs.mkdir(run, { recursive: true });
      const sim = new SimFs(run, o.base);
      const fsx = failingAt(sim, n, after);
      const stateDir = await stateCopy(o.me.state, o.root);
      const done = new Set<string>();
      let error = '';
      try {
        await o.op(fsx, stateDir, (s) => done.add(s));
      } catch (e) {
        error = (e as Error).message;
      }
      // (Past the op's last call: every one was tried.)
      if (!fsx.fired) return { tried, problems };
      tried++;
      const at = `error ${fsx.fired} (call ${n}) [${[...done].join(',')}] ${error ? `op failed: ${error.slice(0, 60)}` : 'op went on'}`;
      const exp = o.expect(done);
      let img = await openCheck(o.root, sim.image('kept'), stateDir, o.passphrase, exp, o.opts, `${at}: reopened`, problems);
      img = await openCheck(o.root, img, o.other.state, o.passphrase, exp, o.opts, `${at}: the other computer`, problems);
      await openCheck(o.root, img, stateDir, o.passphrase, exp, o.opts, `${at}: reopened after the other`, problems);
      await fs.rm(stateDir, { recursive: true, force: true });
    }
  }
  return { tried, problems };
}
