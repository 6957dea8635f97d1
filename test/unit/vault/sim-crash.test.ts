import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyVault } from '../../../electron/core/transfer';
import { Vault } from '../../../electron/core/vault/vault';
import { drive, dump, FLOOR, FULL, makeDirs, PASS, type Dirs, type Keys } from './crash-sim';
import { SimFs, type Image } from './sim-fs';

/**
 * A power cut after any single file-system call of each vault operation leaves
 * a vault that opens, verifies, and holds the state from before the operation
 * or after it. `npm test` samples the crash points; `npm run test:crash`
 * (`npm run test:deep`, MNEMO_DEEP=1) checks every one.
 */
let dirs: Dirs;
beforeAll(async () => {
  dirs = await makeDirs();
  small = await makeBase(async (v) => {
    await v.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/a.md', 'alpha two', { mode: 'update', source: 'user' });
    await v.memory.writeFile('/memories/d/b.md', 'beta', { mode: 'create', source: 'user' });
    await v.internal.putJSON('settings', { theme: 'dark' });
  });
});
afterAll(async () => {
  await dirs.cleanup();
});

const PASS2 = 'a different passphrase for the crash test';
const big = (i: number) => `version ${i}\n` + String.fromCharCode(97 + (i % 26)).repeat(1_000_000);

interface Base {
  image: Image;
  keys: Keys;
}

/** A vault made on the simulated disk and set up by `setup`, then locked without a checkpoint so its journal holds records. */
async function makeBase(setup: (v: Vault, reopen: () => Promise<Vault>) => Promise<void>, historyDepth?: number): Promise<Base> {
  let sim = new SimFs(dirs.run);
  const made = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim, historyDepth });
  let v = made.vault;
  const reopen = async () => {
    await v.close();
    sim = new SimFs(dirs.run, sim.image('lost'));
    v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state });
    await v.unlockWithRecoveryKey(made.recoveryKey);
    return v;
  };
  await setup(v, reopen);
  v.lock();
  await v.close();
  return { image: sim.image('lost'), keys: { recoveryKey: made.recoveryKey, passphrases: [PASS] } };
}

const openWith = (base: Base, journalLimit?: number, lockPerCall?: boolean) => async (sim: SimFs) => {
  const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state, journalLimit, lockPerCall });
  await v.unlockWithRecoveryKey(base.keys.recoveryKey);
  return v;
};

/** Counts the op's calls in a dry run, then drives it with crash checks; prints and returns the number of crash points. */
async function crashTest(name: string, base: Base, op: (v: Vault | undefined, sim: SimFs) => Promise<Vault | string | undefined>, opts: { journalLimit?: number; sample?: number; passphrases?: string[]; sameState?: boolean; alwaysSample?: boolean; lockPerCall?: boolean } = {}) {
  const open = base.image.size ? openWith(base, opts.journalLimit, opts.lockPerCall) : async () => undefined;
  const dry = new SimFs(dirs.run, base.image);
  const dv = await open(dry);
  const start = dry.calls;
  const r = await op(dv, dry);
  const total = dry.calls - start;
  if (typeof r !== 'string') await (r ?? dv)?.close();
  const keys = { ...base.keys, passphrases: opts.passphrases ?? base.keys.passphrases };
  const res = await drive({ dirs, base: base.image, keys, total, sample: opts.sample, open, op, alwaysSample: opts.alwaysSample });
  console.log(`crash points: ${name}: ${res.points} of ${res.calls} calls checked, each with unsynced folder changes kept and lost${FULL && !opts.alwaysSample ? '' : ' (sampled)'}`);
  expect(res.failures).toEqual([]);
  // Rotations and checkpoints keep the content; every other op changes it.
  if (opts.sameState) expect(res.after).toBe(res.before);
  else expect(res.after).not.toBe(res.before);
  return res.points;
}

let small: Base;
const T = FULL ? 3_600_000 : 120_000;

it('a crash at any point of creating a vault leaves no vault or an empty one that opens', async () => {
  const empty: Base = { image: new Map(), keys: { recoveryKey: '', passphrases: [PASS] } };
  await crashTest('create', empty, async (_v, sim) => (await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim })).vault, { sample: 4 });
}, T);

it('a crash at any point of writing, rewriting (str_replace) or deleting a memory leaves the old or the new state', async () => {
  await crashTest('create a file', small, async (v) => void (await v!.memory.writeFile('/memories/new.md', 'new', { mode: 'create', source: 'user' })));
  await crashTest('str_replace (writeFile)', small, async (v) => void (await v!.memory.writeFile('/memories/a.md', 'alpha three', { mode: 'update', source: 'claude' })));
  await crashTest('delete', small, async (v) => void (await v!.memory.remove('/memories/d', 'user')));
}, T);

it('a crash at any point of a per-call write and of the catch-up before it (a torn record another holder left; a checkpoint another holder made) leaves the old or the new state', async () => {
  // Another holder killed mid-append left a torn record at the journal's end: the catch-up cuts it off, then the write appends.
  await crashTest('per-call catch-up of a torn tail, then a write', small, async (v, sim) => {
    const segments = path.join(dirs.run, 'segments');
    const byAge = await Promise.all((await sim.readdir(segments)).map(async (n) => ({ n, at: (await sim.stat(path.join(segments, n))).mtimeMs })));
    const journal = path.join(segments, byAge.sort((a, b) => b.at - a.at)[0]!.n);
    const size = (await sim.stat(journal)).size;
    const fh = await sim.open(journal, 'journal');
    const torn = new Uint8Array(3000);
    new DataView(torn.buffer).setUint32(0, 9000, true);
    new DataView(torn.buffer).setUint32(4, ~9000 >>> 0, true);
    await fh.write(torn, size);
    await fh.close();
    await v!.memory.writeFile('/memories/after-torn.md', 'written after the cut', { mode: 'create', source: 'cli' });
    return v;
  }, { lockPerCall: true });
  // Another holder checkpointed (a new manifest, a fresh journal, segments collected): the catch-up loads afresh, then the write appends.
  await crashTest('per-call catch-up after a checkpoint elsewhere, then a write', small, async (v, sim) => {
    const other = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state });
    await other.unlockWithRecoveryKey(small.keys.recoveryKey);
    await other.close();
    await v!.memory.writeFile('/memories/after-checkpoint.md', 'written after the reload', { mode: 'create', source: 'cli' });
    return v;
  }, { lockPerCall: true, sample: 16 });
}, T);

it('a crash at any point of emptying the trash leaves the deleted versions all kept or all gone, and a vault that opens', async () => {
  const base = await makeBase(async (v) => {
    await v.memory.writeFile('/memories/keep.md', 'kept', { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/gone.md', 'gone one', { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/gone.md', 'gone two', { mode: 'update', source: 'claude' });
    await v.memory.remove('/memories/gone.md', 'user');
  });
  await crashTest('empty trash', base, async (v) => void (await v!.emptyTrash()));
}, T);

it('a crash at any point of a checkpoint or a compaction leaves the same state', async () => {
  // A checkpoint runs at close when the journal holds records: the state is the same before and after, so changes are made first.
  await crashTest('checkpoint', small, async (v) => {
    await v!.memory.writeFile('/memories/c.md', 'made before the checkpoint', { mode: 'create', source: 'user' });
    const state = await dump(v!);
    await v!.close();
    return state;
  });
  const sparse = await makeBase(async (v, reopen) => {
    await v.memory.writeFile('/memories/keep.md', 'small and live', { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/big.md', 'x'.repeat(150_000), { mode: 'create', source: 'user' });
    let w = await reopen();
    for (let i = 0; i < 3; i++) await w.memory.writeFile('/memories/big.md', String(i).repeat(150_000), { mode: 'update', source: 'user' });
    w = await reopen();
    // One record in the journal, so the next write (journal limit 1) checkpoints first and compacts.
    await w.memory.writeFile('/memories/one.md', 'one record', { mode: 'create', source: 'user' });
  }, 1);
  await crashTest('compaction', sparse, async (v) => void (await v!.memory.writeFile('/memories/after.md', 'the write that triggers it', { mode: 'create', source: 'user' })), { journalLimit: 1 });
}, T);

it('a crash at any point of changing the passphrase leaves a vault that opens with the old or the new one', async () => {
  await crashTest('passphrase change', small, async (v) => {
    await v!.changePassphrase(PASS, PASS2);
    await v!.memory.writeFile('/memories/marker.md', 'after the change', { mode: 'create', source: 'user' });
    return v;
  }, { passphrases: [PASS2, PASS], sample: 6 });
}, T);

it('a crash at any point of a key rotation whose new epoch passes 16 MiB leaves the old or the new keys working', async () => {
  const base = await makeBase(async (v, reopen) => {
    let w = v;
    for (let i = 0; i < 18; i++) {
      await w.memory.writeFile('/memories/big.md', big(i), { mode: 'upsert', source: 'user' });
      if (i % 4 === 3) w = await reopen();
    }
    await w.memory.writeFile('/memories/z.md', 'copied last', { mode: 'create', source: 'user' });
  });
  await crashTest('rotation over 16 MiB', base, async (v) => void (await v!.rotateKeys(PASS)), { sample: 6, sameState: true });
}, T);

it('a crash at any point of a key rotation with more records than the journal limit leaves the old or the new keys working', async () => {
  // The same path as 4,096 records under the default limit, at a size where every point can be checked.
  const base = await makeBase(async (v) => {
    for (let i = 0; i < 100; i++) await v.memory.mkdir(`/memories/d${i}`, 'user');
  });
  await crashTest('rotation over the journal limit (64 records)', base, async (v) => void (await v!.rotateKeys(PASS)), { sample: 6, sameState: true, journalLimit: 64 });
}, T);

it('a crash during a key rotation with more than 4,096 records in the new epoch leaves the old or the new keys working (sampled points)', async () => {
  const base = await makeBase(async (v) => {
    for (let i = 0; i < 4200; i++) await v.memory.mkdir(`/memories/d${i}`, 'user');
  });
  // Each check loads a 4,200-record vault, so even the full run samples here: 60 points spread over the ~4,250 calls.
  await crashTest('rotation over 4,096 records', base, async (v) => void (await v!.rotateKeys(PASS)), { sample: FULL ? 60 : 6, sameState: true, alwaysSample: true });
}, T);

it('a crash at any point of an import of 400 files leaves all of them or none', async () => {
  const items = Array.from({ length: 400 }, (_, i) => ({ path: `/memories/imported/f${i}.md`, text: `imported file ${i}\n`.repeat(20) }));
  const limits = { overwrite: false, source: 'cli' as const, maxFileBytes: 1024 * 1024, maxTotalBytes: 100 * 1024 * 1024 };
  await crashTest('import of 400 files', small, async (v) => void (await v!.importFiles(items, limits)), { sample: 10 });
}, T);

it('a crash at any point of a backup leaves no backup or a whole one that opens and verifies, never a half one', async () => {
  // Here the simulated disk holds the vault and the backup side by side.
  const vdir = path.join(dirs.run, 'vault');
  await fs.mkdir(vdir, { recursive: true });
  const sim = new SimFs(dirs.run);
  const { vault, recoveryKey } = await Vault.create(vdir, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim });
  await vault.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
  await vault.memory.writeFile('/memories/d/b.md', 'beta', { mode: 'create', source: 'user' });
  const expected = await dump(vault);
  // Format 2's device lock is in the state folder, keyed by the vault's id, which the backup shares: opened with this
  // computer's state folder while the original is held it is refused as in use (one vault, one holder, sync-design §6).
  // There the backup is checked as another computer restoring it would open it, with a state folder of its own.
  const readerState = vault.internal.scheme?.() === 2 ? path.join(path.dirname(dirs.state), 'backup-reader-state') : dirs.state;
  const failures: string[] = [];
  let points = 0;
  const check = async (n: number, what: string, count = true) => {
    if (count) points++;
    for (const outcome of ['kept', 'lost'] as const) {
      const image = sim.image(outcome);
      const backup = image.get('backup');
      if (!(backup instanceof Map) || backup.size === 0) continue;
      try {
        const copy = await Vault.open(path.join(dirs.check, 'backup'), { fs: new SimFs(dirs.check, image), stateDir: readerState, readOnly: true });
        await copy.unlockWithRecoveryKey(recoveryKey);
        const report = await copy.verify();
        if (!report.ok) failures.push(`call ${n} (${what}), ${outcome}: ${report.problems.join('; ')}`);
        if ((await dump(copy)) !== expected) failures.push(`call ${n} (${what}), ${outcome}: the backup holds another state`);
        await copy.close();
      } catch (e) {
        failures.push(`call ${n} (${what}), ${outcome}: ${(e as Error).message}`);
      }
    }
  };
  const start = sim.calls;
  sim.after = (n, what) => (FULL || (n - start) % 7 === 0 ? check(n - start, what) : Promise.resolve());
  await copyVault(vault, path.join(dirs.run, 'backup'), undefined, sim);
  sim.after = undefined;
  await check(sim.calls - start, 'returned', false);
  console.log(`crash points: backup: ${points} of ${sim.calls - start} calls checked, each with unsynced folder changes kept and lost${FULL ? '' : ' (sampled)'}`);
  expect(sim.image('lost').get('backup')).toBeInstanceOf(Map);
  expect(failures).toEqual([]);
  await vault.close();
}, T);
