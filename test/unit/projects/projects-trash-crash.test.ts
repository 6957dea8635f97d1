/**
 * A power cut after any single file-system call while emptying a project's
 * trash, restoring a deleted memory, or moving or copying a memory to another
 * project leaves the vault as it was before or as it is after — never a file
 * lost or in both projects, never half a trash — and a vault that verifies.
 */
import { afterAll, beforeAll, it } from 'vitest';
import { transferMemory } from '../../../electron/core/projects/move';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
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
  const mem = await new Projects(vault).memoryVault(work.id);
  for (const [v, name] of [[vault, 'first'], [mem, 'work']] as const) {
    await v.memory.writeFile('/memories/keep.md', `${name} keep`, { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/gone.md', `${name} gone 1`, { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/gone.md', `${name} gone 2`, { mode: 'update', source: 'user' });
    await v.memory.remove('/memories/gone.md', 'user');
  }
  await vault.memory.writeFile('/memories/keep.md', 'first keep 2', { mode: 'update', source: 'user' });
  vault.lock();
  await vault.close();
  base = { image: sim.image('lost'), recoveryKey, work: work.id };
});
afterAll(async () => {
  await dirs.cleanup();
});

const crashCheck = (op: (v: Vault) => Promise<unknown>) => crashAtEveryCall(dirs, base, op);

const work = () => `/memories/.mnemo-projects/${base.work}`;

it('a crash while emptying one project’s trash leaves all of it or none of it, and the other project’s trash as it was', async () => {
  await crashCheck((v) => v.emptyTrash([`${work()}/gone.md`]));
}, 300_000);

it('a crash while restoring a deleted memory leaves it in the trash or restored', async () => {
  await crashCheck((v) => v.restoreDeleted(`${work()}/gone.md`));
}, 300_000);

it('a crash while moving or copying a memory to another project leaves it in one place (or, copied, in both), with its history', async () => {
  await crashCheck((v) => transferMemory(v, { fromProject: FIRST_PROJECT_ID, path: '/memories/keep.md', toProject: base.work, toPath: '/memories/moved.md', mode: 'move', source: 'user' }));
  await crashCheck((v) => transferMemory(v, { fromProject: base.work, path: '/memories/keep.md', toProject: FIRST_PROJECT_ID, toPath: '/memories/copied.md', mode: 'copy', source: 'user' }));
}, 300_000);
