/**
 * A power cut after any single file-system call while creating, renaming or
 * deleting a project leaves the project list as it was before or as it is
 * after, never a mix, and a vault that opens and verifies.
 */
import { afterAll, beforeAll, it } from 'vitest';
import { Projects } from '../../../electron/core/projects/store';
import { Vault } from '../../../electron/core/vault/vault';
import { crashAtEveryCall, FLOOR, makeDirs, PASS, type Dirs } from '../vault/crash-sim';
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

const crashCheck = (op: (v: Vault) => Promise<unknown>) => crashAtEveryCall(dirs, base, op);

it('a crash while creating, renaming or deleting a project leaves the old list or the new one', async () => {
  await crashCheck((v) => new Projects(v).create('New'));
  await crashCheck((v) => new Projects(v).rename(base.work, 'Office'));
  await crashCheck((v) => new Projects(v).delete(base.work));
}, 120_000);
