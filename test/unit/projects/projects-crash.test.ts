/**
 * A power cut after any single file-system call while creating, renaming or
 * deleting a project leaves the project list as it was before or as it is
 * after, never a mix, and a vault that opens and verifies.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Projects } from '../../../electron/core/projects/store';
import { Vault } from '../../../electron/core/vault/vault';
import { drive, FLOOR, makeDirs, PASS, type Dirs } from '../vault/crash-sim';
import { SimFs, type Image } from '../vault/sim-fs';

let dirs: Dirs;
let base: { image: Image; recoveryKey: string; work: string };
beforeAll(async () => {
  dirs = await makeDirs();
  const sim = new SimFs(dirs.run);
  const { vault, recoveryKey } = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim });
  const work = await new Projects(vault).create('Work');
  await (await new Projects(vault).memoryVault(work.id)).memory.writeFile('/memories/w.md', 'work', { mode: 'create', source: 'user' });
  vault.lock();
  await vault.close();
  base = { image: sim.image('lost'), recoveryKey, work: work.id };
});
afterAll(async () => {
  await dirs.cleanup();
});

async function crashCheck(op: (v: Vault) => Promise<unknown>) {
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

it('a crash while creating, renaming or deleting a project leaves the old list or the new one', async () => {
  await crashCheck((v) => new Projects(v).create('New'));
  await crashCheck((v) => new Projects(v).rename(base.work, 'Office'));
  await crashCheck((v) => new Projects(v).delete(base.work));
}, 120_000);
