/**
 * The review inbox in a vault of two projects with N memories each (default
 * 10,000), through the IPC handlers as the window calls them: listing and
 * counting with nothing to review, with 100 changes by Claude, and with C (default
 * 2,000) more that Claude wrote and nobody reviewed yet. Run: npx tsx test/bench/review.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Vault } from '../../electron/core/vault/vault';
import { Projects } from '../../electron/core/projects/store';
import { createHandlers, dispatch } from '../../electron/main/handlers';

const N = Number(process.env.N ?? 10000);
/** Memories Claude writes one by one for the first-use figure (each write is durable, so this takes a while). */
const C = Number(process.env.C ?? 2000);
async function main() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-'));
  const { handlers, session } = createHandlers({
    userDataDir: root,
    stateDir: path.join(root, 'state'),
    env: {},
    kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 },
    pickDirectory: async () => undefined,
    emit: () => undefined,
  });
  const call = async (name: Parameters<typeof dispatch>[1], ...args: unknown[]) => {
    const r = await dispatch(handlers, name, args);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  const time = async (label: string, fn: () => Promise<unknown>) => {
    const runs: number[] = [];
    let out: unknown;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      out = await fn();
      runs.push(performance.now() - t0);
    }
    runs.sort((a, b) => a - b);
    console.log(`${label}: median ${runs[2]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)}, max ${runs[4]!.toFixed(1)})${Array.isArray(out) ? ` → ${out.length} entries` : ''}`);
  };
  await call('vaultCreate', { passphrase: 'correct horse battery staple' });
  const v = session.unlocked() as Vault;
  const work = await new Projects(v).create('Work');
  const items = [];
  for (let i = 0; i < N; i++) items.push({ path: `/memories/d${i % 100}/m${i}.md`, text: `memory ${i}` });
  for (let i = 0; i < N; i++) items.push({ path: `/memories/.mnemo-projects/${work.id}/d${i % 100}/m${i}.md`, text: `work memory ${i}` });
  await v.importFiles(items, { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e9 });
  await time(`reviewList Default, ${N} memories, none to review`, () => call('reviewList'));
  await time(`reviewCounts, 2 × ${N} memories`, () => call('reviewCounts'));
  const by = { kind: 'claude' as const, conversationId: 'aaaabbbbccccdddd', turn: 1 };
  for (let i = 0; i < 100; i++) await v.memory.writeFile(`/memories/d${i % 100}/m${i}.md`, `changed ${i}`, { mode: 'update', source: 'claude', by });
  await time(`reviewList Default, ${N} memories, 100 changed by Claude`, () => call('reviewList'));
  const t0 = performance.now();
  await call('reviewMark', { items: Array.from({ length: 100 }, (_, i) => ({ path: `/memories/d${i % 100}/m${i}.md`, version: 2 })) });
  console.log(`reviewMark 100 items: ${(performance.now() - t0).toFixed(0)} ms`);
  const claudeItems = Array.from({ length: C }, (_, i) => ({ path: `/memories/c/m${i}.md`, text: `by Claude ${i}` }));
  for (let i = 0; i < C; i += 1000) await v.exclusive(async (ops) => {
    for (const it of claudeItems.slice(i, i + 1000)) await ops.writeFile(it.path, it.text, { mode: 'create', source: 'claude', by });
  });
  await time(`reviewList Default, first use: ${C} more memories written by Claude`, () => call('reviewList'));
  await session.close();
  await fs.rm(root, { recursive: true, force: true });
}
void main();
