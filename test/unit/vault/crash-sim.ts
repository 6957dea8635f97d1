/**
 * Drives one vault operation over the simulated disk and, after every
 * file-system call it makes (or a sample of them), opens the disk a power cut
 * at that moment would leave — with unsynced folder changes kept and lost —
 * and checks that it opens, verifies, and holds exactly the state before the
 * operation or the state after it, never a mix.
 */
import { expect } from 'vitest';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError, type OpenOptions } from '../../../electron/core/vault/types';
import { SimFs, type Image, type Outcome } from './sim-fs';
import { DEEP } from '../../deep';

/** Every crash point under `npm run test:deep` (MNEMO_DEEP=1); a sample of them in `npm test`. */
export const FULL = DEEP;
export const PASS = 'correct horse battery staple';
export const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };

/** Real folders the vaults are mounted at: the process lock lives there, all else is simulated. */
export interface Dirs {
  run: string;
  check: string;
  state: string;
  cleanup(): Promise<void>;
}

export async function makeDirs(): Promise<Dirs> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-sim-'));
  const d = { run: path.join(root, 'run'), check: path.join(root, 'check'), state: path.join(root, 'state') };
  for (const p of Object.values(d)) await fs.mkdir(p, { recursive: true });
  return { ...d, cleanup: () => fs.rm(root, { recursive: true, force: true }) };
}

const digest = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** Everything a user could see in the vault, content as hashes: files with versions, folders, history, internal values. */
export async function dump(v: Vault): Promise<string> {
  const files: string[] = [];
  const hist: string[] = [];
  for (const e of v.memory.list('/memories', Infinity)) {
    if (e.kind === 'dir') files.push(`${e.path}/`);
    else files.push(`${e.path} v${e.version} ${digest(await v.memory.readFile(e.path))}`);
  }
  for (const e of v.memory.list('/memories', Infinity)) if (e.kind === 'file') hist.push(`${e.path} ${v.history(e.path).map((h) => h.version).join(',')}`);
  const internal: string[] = [];
  for (const k of v.internal.keys('')) internal.push(`${k} ${digest((await v.internal.get(k)) ?? new Uint8Array())}`);
  const trash = v.trash().map((e) => `${e.path} ${e.versions.map((x) => x.version).join(',')}`);
  return JSON.stringify({ files, hist, internal, depth: v.historyDepth(), trash });
}

export interface Keys {
  recoveryKey: string;
  /** Passphrases that may unlock the disk after the operation (the new one first). */
  passphrases: string[];
}

export interface CheckResult {
  /** Crash points checked (each in both outcomes). */
  points: number;
  /** The op's file-system calls. */
  calls: number;
  failures: string[];
}

/** `NO_VAULT`, or the dump of the vault on `image`, after checking it opens and verifies. */
async function openImage(dirs: Dirs, image: Image, baseHeader: Uint8Array | undefined, keys: Keys, usePassphrase: boolean, extra: OpenOptions = {}): Promise<string> {
  const sim = new SimFs(dirs.check, image);
  // The device's own state (high-water mark, last header seen) as the running process had left it at the crash;
  // a copy, so what the check notes there does not leak into the run or the next check.
  const stateDir = await fs.mkdtemp(path.join(path.dirname(dirs.state), 'state-at-crash-'));
  // A mark being written is a temp file renamed over the old one: copy the marks, not a temp that may vanish mid-copy.
  // The device lock's folder (format 2) names the running process as holder: after a power cut nothing holds it.
  await fs.cp(dirs.state, stateDir, { recursive: true, filter: (src) => !src.endsWith('.tmp') && path.basename(src) !== 'locks' });
  let v: Vault;
  try {
    v = await Vault.open(dirs.check, { ...extra, fs: sim, stateDir });
  } catch (e) {
    await fs.rm(stateDir, { recursive: true, force: true });
    if (e instanceof VaultError && e.code === 'NO_VAULT') return 'NO_VAULT';
    // A creation cut before its vault.json: no vault, and a folder that is never taken for an empty one (the user moves it away).
    if (e instanceof VaultError && e.code === 'DAMAGED' && e.subject === 'vault.json' && !image.has('vault.json')) return 'NO_VAULT';
    throw e;
  }
  try {
    const header = image.get('vault.json') as Uint8Array;
    const sameHeader = baseHeader !== undefined && Buffer.from(header).equals(Buffer.from(baseHeader));
    if (sameHeader && !usePassphrase) await v.unlockWithRecoveryKey(keys.recoveryKey);
    else {
      let unlocked = false;
      for (const p of keys.passphrases) {
        try {
          await v.unlock(p);
          unlocked = true;
          break;
        } catch (e) {
          if (!(e instanceof VaultError && e.code === 'BAD_PASSPHRASE')) throw e;
        }
      }
      if (!unlocked) throw new Error('no passphrase unlocks it');
    }
    const report = await v.verify();
    if (!report.ok) throw new Error(`verify: ${report.problems.join('; ')}`);
    return await dump(v);
  } finally {
    await v.close();
    await fs.rm(stateDir, { recursive: true, force: true });
  }
}

/**
 * Runs `op` on a vault mounted over `base` and checks the crash image after
 * each sampled call. `open` makes the vault the op runs on (unlocked), or
 * undefined for an op that makes its own (create). `expectBefore` is the
 * state the disk held before (or 'NO_VAULT').
 */
export async function drive(opts: {
  dirs: Dirs;
  base: Image;
  keys: Keys;
  /** How many points to sample when not running the full set. */
  sample?: number;
  /** Total calls the op makes (from a dry run); needed to spread the sample. */
  total?: number;
  /** Sample even in the full run (an op whose every check is too slow to run at each call). */
  alwaysSample?: boolean;
  open: (sim: SimFs) => Promise<Vault | undefined>;
  /** Returns the vault to read the new state from, or that state already read (for an op that closes the vault). */
  op: (v: Vault | undefined, sim: SimFs) => Promise<Vault | string | undefined>;
  /** Options every check opens the crash image with (format 2: `format2`). */
  extra?: OpenOptions;
}): Promise<CheckResult & { before: string; after: string }> {
  // Each op starts on a device that knows the base image only (bases are reused across ops, which advance the mark).
  await fs.rm(opts.dirs.state, { recursive: true, force: true });
  await fs.mkdir(opts.dirs.state, { recursive: true });
  const sim = new SimFs(opts.dirs.run, opts.base);
  const baseHeader = opts.base.get('vault.json') as Uint8Array | undefined;
  const v = await opts.open(sim);
  const before = v ? await dump(v) : 'NO_VAULT';
  const seen = new Map<string, string>();
  const failures: string[] = [];
  let points = 0;
  const start = sim.calls;
  const stride = (FULL && !opts.alwaysSample) || !opts.total ? 1 : Math.max(1, Math.ceil(opts.total / (opts.sample ?? 8)));
  sim.after = async (n, what) => {
    const k = n - start;
    if (k % stride !== 0 && k !== opts.total) return;
    points++;
    for (const outcome of ['kept', 'lost'] as Outcome[]) {
      try {
        // The recovery key skips Argon2; every fifth point proves the passphrase too.
        seen.set(`${k} ${outcome} after ${what}`, await openImage(opts.dirs, sim.image(outcome), baseHeader, opts.keys, points % 5 === 0, opts.extra));
      } catch (e) {
        failures.push(`call ${k} (${what}), ${outcome}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  };
  const result = await opts.op(v, sim);
  sim.after = undefined;
  const calls = sim.calls - start;
  const live = typeof result === 'string' ? undefined : (result ?? v);
  const after = typeof result === 'string' ? result : live ? await dump(live) : 'NO_VAULT';
  await live?.close();
  // The disk as the op left it, once it returned, holds the new state.
  const final = await openImage(opts.dirs, sim.image('lost'), baseHeader, opts.keys, false, opts.extra).catch((e: Error) => `error: ${e.message}`);
  if (final !== after) failures.push(`after the op returned: ${final.slice(0, 200)}`);
  for (const [point, state] of seen) if (state !== before && state !== after) failures.push(`call ${point}: neither the old nor the new state: ${state.slice(0, 300)}`);
  return { points, calls, failures, before, after };
}

/**
 * Cuts the power after each file-system call `op` makes on a vault restored
 * from `base` (unlocked with its recovery key), and checks every outcome: the
 * vault opens and verifies, as it was before `op` or as it is after.
 */
export async function crashAtEveryCall(dirs: Dirs, base: { image: Image; recoveryKey: string }, op: (v: Vault) => Promise<unknown>): Promise<void> {
  const open = async (sim: SimFs) => {
    const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state });
    await v.unlockWithRecoveryKey(base.recoveryKey);
    return v;
  };
  // A dry run counts the op's file-system calls, so every one of them is a crash point.
  const dry = new SimFs(dirs.run, base.image);
  const dv = await open(dry);
  const start = dry.calls;
  await op(dv);
  const total = dry.calls - start;
  await dv.close();
  const res = await drive({ dirs, base: base.image, keys: { recoveryKey: base.recoveryKey, passphrases: [PASS] }, sample: total, total, open, op: async (v) => void (await op(v!)) });
  expect(res.failures).toEqual([]);
  expect(res.points).toBeGreaterThan(0);
  expect(res.after).not.toBe(res.before);
}
