/**
 * A power cut after any single file-system call while marking memories
 * reviewed leaves the marks as they were before or as they are after, never a
 * mix, and never loses a mark acknowledged earlier.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ReviewInbox } from '../../../electron/core/review/inbox';
import { FIRST_PROJECT_ID } from '../../../electron/core/projects/store';
import { Vault } from '../../../electron/core/vault/vault';
import { crashAtEveryCall, FLOOR, makeDirs, PASS, type Dirs } from '../vault/crash-sim';
import { SimFs, type Image } from '../vault/sim-fs';

let dirs: Dirs;
let base: { image: Image; recoveryKey: string };
const by = { kind: 'claude' as const, conversationId: 'c1', turn: 1 };
beforeAll(async () => {
  dirs = await makeDirs();
  const sim = new SimFs(dirs.run);
  const { vault, recoveryKey } = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim });
  for (const p of ['/memories/a.md', '/memories/b.md', '/memories/c.md']) await vault.memory.writeFile(p, p, { mode: 'create', source: 'claude', by });
  // Acknowledged before the crash: it must be there whatever the crash leaves.
  await new ReviewInbox(vault).mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 1 }]);
  vault.lock();
  await vault.close();
  base = { image: sim.image('lost'), recoveryKey };
});
afterAll(async () => {
  await dirs.cleanup();
});

it('a crash while marking leaves the old marks or the new ones and keeps every earlier mark', async () => {
  await crashAtEveryCall(dirs, base, async (v) => {
    const inbox = new ReviewInbox(v);
    expect((await inbox.list()).map((e) => e.path)).toEqual(['/memories/b.md', '/memories/c.md']);
    await inbox.mark(FIRST_PROJECT_ID, [{ path: '/memories/b.md', version: 1 }]);
    expect((await inbox.list()).map((e) => e.path)).toEqual(['/memories/c.md']);
  });
}, 120_000);
