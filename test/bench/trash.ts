/**
 * Memory listing, trash listing, search and emptying the trash in a vault of
 * two projects with N memories each (default 10,000), half of them deleted,
 * through the IPC handlers as the window calls them. Run: npx tsx test/bench/trash.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Vault } from '../../electron/core/vault/vault';
import { Projects } from '../../electron/core/projects/store';
import { createHandlers, dispatch } from '../../electron/main/handlers';

const N = Number(process.env.N ?? 10000);
async function main() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-'));
  const { handlers, session } = createHandlers({
    userDataDir: root, stateDir: path.join(root, 'state'), env: {}, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 },
    pickDirectory: async () => undefined, emit: () => undefined,
  } as never);
  const call = async (name: string, ...args: unknown[]) => {
    const r = await dispatch(handlers, name as never, args);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  await call('vaultCreate', { passphrase: 'correct horse battery staple' });
  const v = session.unlocked() as Vault;
  const work = await new Projects(v).create('Work');
  const root2 = `/memories/.mnemo-projects/${work.id}`;
  const items = [];
  for (let i = 0; i < N; i++) items.push({ path: `/memories/d${i % 100}/m${i}.md`, text: `memory ${i} about tea` });
  for (let i = 0; i < N; i++) items.push({ path: `${root2}/d${i % 100}/m${i}.md`, text: `work memory ${i}` });
  await v.importFiles(items, { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e9 });
  // Half of each project's memories deleted: N/2 trash entries per project.
  for (const base of ['/memories', root2]) for (let d = 0; d < 50; d++) await v.memory.remove(`${base}/d${d}`, 'user');
  const time = async (label: string, fn: () => Promise<unknown>) => {
    const runs: number[] = [];
    let out: unknown;
    for (let i = 0; i < 5; i++) { const t0 = performance.now(); out = await fn(); runs.push(performance.now() - t0); }
    runs.sort((a, b) => a - b);
    console.log(`${label}: median ${runs[2]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)}, max ${runs[4]!.toFixed(1)})${Array.isArray(out) ? ` → ${out.length} items` : ''}`);
  };
  await time('memoryList Default', () => call('memoryList'));
  await time('memoryList Work', () => call('memoryList', { project: work.id }));
  await time('memoryTrash Default', () => call('memoryTrash'));
  await time('memoryTrash Work', () => call('memoryTrash', { project: work.id }));
  await time('memorySearch Default "tea" (200-hit cap)', () => call('memorySearch', { query: 'tea' }));
  await time('memorySearch Work "zzz" (no hits)', () => call('memorySearch', { query: 'zzz', project: work.id }));
  const t0 = performance.now();
  await call('memoryTrashEmpty', { project: work.id });
  console.log(`memoryTrashEmpty Work (${N / 2} entries): ${(performance.now() - t0).toFixed(0)} ms; Default trash still ${(await call('memoryTrash') as unknown[]).length}`);
  await session.close();
  await fs.rm(root, { recursive: true, force: true });
}
void main();
