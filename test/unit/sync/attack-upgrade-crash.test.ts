/**
 * A power cut at the file-system calls of the first change a format-2 build
 * makes to a format-1 vault, for first changes other than a memory write
 * (crash2.test.ts has that one): a settings save, a passphrase change, a key
 * rotation, a restore from history and from the trash, a history depth. Each
 * crash image must open with the new build (crash-sim.ts `drive`: verified,
 * the state before or after) AND with a format-1 build (an older Mnemo, the
 * user going back after the crash): that one opens the state from before the
 * change (and a write it makes then is still read by the new build after), or
 * refuses with "Update Mnemo" and writes nothing. Sampled in `npm test`;
 * every call under MNEMO_DEEP=1.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError, type OpenOptions } from '../../../electron/core/vault/types';
import { drive, dump, FLOOR, FULL, makeDirs, PASS, type Dirs, type Keys } from '../vault/crash-sim';
import { SimFs, type Image } from '../vault/sim-fs';
import { prng, randomSeed } from '../../deep';

const V2: OpenOptions = { format2: true, ackDelayMs: 0 };
const V1: OpenOptions = { format2: false };
const NEW_PASS = 'the passphrase set after updating';
const OLD_BUILD_PASS = 'set by the old build after the crash';
const T = FULL ? 3_600_000 : 180_000;
let dirs: Dirs;
let base: { image: Image; recoveryKey: string };
/** The v1 base as the old build dumps it. */
let oldBefore: string;
const seed = randomSeed('attack-upgrade-crash');

beforeAll(async () => {
  dirs = await makeDirs();
  const sim = new SimFs(dirs.run);
  const made = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim, journalLimit: 4, ...V1 });
  const v = made.vault;
  await v.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
  await v.memory.writeFile('/memories/a.md', 'alpha two', { mode: 'update', source: 'claude' });
  await v.memory.writeFile('/memories/d/b.md', 'beta', { mode: 'create', source: 'user' });
  await v.internal.putJSON('settings', { theme: 'dark' });
  await v.internal.putJSON('conversations/c1', { title: 'a chat', turns: 3 });
  await v.memory.writeFile('/memories/gone.md', 'deleted', { mode: 'create', source: 'user' });
  await v.memory.remove('/memories/gone.md', 'user');
  await v.close();
  base = { image: sim.image('lost'), recoveryKey: made.recoveryKey };
  oldBefore = await oldBuild(base.image, { recoveryKey: made.recoveryKey, passphrases: [PASS] }, true).then((r) => r.state);
}, 60_000);
afterAll(async () => {
  await dirs.cleanup();
});

const same = (a: Image, b: Image): boolean => {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (v instanceof Map) {
      if (!(w instanceof Map) || !same(v, w)) return false;
    } else if (!(w instanceof Uint8Array) || !Buffer.from(v).equals(Buffer.from(w))) return false;
  }
  return true;
};

/**
 * The image under a format-1 build, on a copy of the state folder `state` (the computer's, as the crash left it):
 * refused as newer with nothing written, or opened at the state from before. Then (`write`) it writes a memory, and
 * the new build, on the same state, must read it after.
 */
async function oldBuild(image: Image, keys: Keys, baseHeader: boolean, state?: string, write = false): Promise<{ state: string; refused?: true }> {
  const st = await fs.mkdtemp(path.join(path.dirname(dirs.state), 'old-build-'));
  try {
    if (state) await fs.cp(state, st, { recursive: true });
    const sim = new SimFs(dirs.check, image);
    let v: Vault;
    try {
      v = await Vault.open(dirs.check, { ...V1, fs: sim, stateDir: st });
    } catch (e) {
      if (!(e instanceof VaultError) || e.code !== 'BAD_HEADER' || !/Update Mnemo/.test(e.message)) throw e;
      if (!same(sim.image('kept'), image)) throw new Error('the old build refused the vault but wrote to it', { cause: e });
      return { state: 'refused', refused: true };
    }
    let got: string;
    try {
      await unlockAny(v, keys, baseHeader);
      const report = await v.verify();
      if (!report.ok) throw new Error(`old build: verify: ${report.problems.join('; ')}`);
      got = await dump(v);
      if (write) {
        await v.memory.writeFile('/memories/by-old.md', 'the old build wrote this', { mode: 'create', source: 'user' });
        // And changes the passphrase (vault.json at the next counter, still format 1, over a half-made upgrade).
        await v.setPassphrase(OLD_BUILD_PASS).catch(async () => {
          for (const p of keys.passphrases) if (await v.changePassphrase(p, OLD_BUILD_PASS).then(() => true, () => false)) return;
          throw new Error('the old build could not change the passphrase');
        });
      }
    } finally {
      await v.close();
    }
    // The new build after it: on this computer, then on another one (a state folder of its own) that never saw it.
    const after = sim.image('lost');
    const other = await fs.mkdtemp(path.join(path.dirname(dirs.state), 'other-'));
    for (const stateDir of write ? [st, other] : []) {
      const w = await Vault.open(dirs.check, { ...V2, fs: new SimFs(dirs.check, after), stateDir });
      try {
        await unlockAny(w, { ...keys, passphrases: [OLD_BUILD_PASS] }, false);
        const report = await w.verify();
        if (!report.ok) throw new Error(`new build after the old one: verify: ${report.problems.join('; ')}`);
        if ((await w.memory.readFile('/memories/by-old.md')) !== 'the old build wrote this') throw new Error('new build lost the old build’s write');
        if ((await w.memory.readFile('/memories/a.md')) !== 'alpha two') throw new Error('new build lost a.md');
        // And it writes on (the upgrade finished, or made now).
        await w.memory.writeFile('/memories/after.md', 'after', { mode: 'create', source: 'user' });
      } finally {
        await w.close();
      }
    }
    await fs.rm(other, { recursive: true, force: true });
    return { state: got };
  } finally {
    await fs.rm(st, { recursive: true, force: true });
  }
}

async function unlockAny(v: Vault, keys: Keys, baseHeader: boolean): Promise<void> {
  if (baseHeader) return void (await v.unlockWithRecoveryKey(keys.recoveryKey));
  for (const p of keys.passphrases) {
    try {
      return void (await v.unlock(p));
    } catch (e) {
      if (!(e instanceof VaultError && e.code === 'BAD_PASSPHRASE')) throw e;
    }
  }
  throw new Error('no passphrase unlocks it');
}

interface Point {
  k: number;
  what: string;
  image: Image;
  baseHeader: boolean;
  state: string;
}

async function crashTest(name: string, op: (v: Vault) => Promise<unknown>, o: { passphrases?: string[]; sample?: number; sameState?: boolean } = {}): Promise<void> {
  const keys: Keys = { recoveryKey: base.recoveryKey, passphrases: o.passphrases ?? [PASS] };
  const open = async (sim: SimFs) => {
    const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state, ...V2 });
    await v.unlockWithRecoveryKey(base.recoveryKey);
    return v;
  };
  await fs.rm(dirs.state, { recursive: true, force: true });
  const dry = new SimFs(dirs.run, base.image);
  const dv = await open(dry);
  const start = dry.calls;
  await op(dv);
  const total = dry.calls - start;
  await dv.close();
  const baseHeader = base.image.get('vault.json') as Uint8Array;
  const points: Point[] = [];
  let snap = 0;
  const res = await drive({
    dirs,
    base: base.image,
    keys,
    total,
    sample: o.sample ?? 8,
    open,
    extra: V2,
    op: async (v, sim) => {
      const inner = sim.after;
      const start = sim.calls;
      sim.after = async (n, what) => {
        await inner?.(n, what);
        for (const outcome of ['kept', 'lost'] as const) {
          const image = sim.image(outcome);
          const state = path.join(path.dirname(dirs.state), `snap-${snap++}`);
          await fs.cp(dirs.state, state, { recursive: true, filter: (src) => !src.endsWith('.tmp') && path.basename(src) !== 'locks' });
          points.push({ k: n - start, what: `${what} ${outcome}`, image, baseHeader: Buffer.from(image.get('vault.json') as Uint8Array).equals(Buffer.from(baseHeader)), state });
        }
      };
      await op(v!);
      return v;
    },
  });
  expect(res.failures).toEqual([]);
  if (o.sameState) expect(res.after).toBe(res.before);
  else expect(res.after).not.toBe(res.before);
  // The old build at a sample of the points (all under MNEMO_DEEP), every fourth one then writing and handing back.
  const rand = prng(seed ^ points.length);
  const picked = FULL ? points : points.filter(() => rand() < (o.sample ?? 8) / points.length);
  const failures: string[] = [];
  let refused = 0;
  for (const [i, p] of picked.entries()) {
    try {
      const r = await oldBuild(p.image, keys, p.baseHeader, p.state, i % 4 === 0);
      if (r.refused) refused++;
      else if (r.state !== oldBefore) failures.push(`call ${p.k} (${p.what}): the old build reads neither the refusal nor the state before: ${r.state.slice(0, 200)}`);
    } catch (e) {
      failures.push(`call ${p.k} (${p.what}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  for (const p of points) await fs.rm(p.state, { recursive: true, force: true });
  console.log(`attack-upgrade-crash: ${name}: ${res.points} crash points of ${res.calls} calls under the new build (both outcomes), ${picked.length} images under the old build (${refused} refused as newer)`);
  expect(failures).toEqual([]);
}

it('a crash at any point of a settings save as the first change of a v1 vault', async () => {
  await crashTest('settings save', (v) => v.internal.putJSON('settings', { theme: 'light' }));
}, T);

it('a crash at any point of a passphrase change as the first change of a v1 vault', async () => {
  await crashTest('passphrase change', (v) => v.changePassphrase(PASS, NEW_PASS), { passphrases: [NEW_PASS, PASS], sameState: true });
}, T);

it('a crash at any point of a key rotation (or new recovery key) as the first change of a v1 vault', async () => {
  await crashTest('key rotation', (v) => v.rotateKeys(PASS), { sameState: true, sample: 10 });
}, T);

it('a crash at any point of a restore from history, from the trash, or a history depth as the first change of a v1 vault', async () => {
  await crashTest('restore from history', (v) => v.restore('/memories/a.md', 1, 'user'));
  await crashTest('restore from the trash', (v) => v.restoreDeleted('/memories/gone.md'));
  await crashTest('history depth', (v) => v.setHistoryDepth(3));
}, T);
