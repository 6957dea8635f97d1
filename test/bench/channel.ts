/**
 * `npx tsx test/bench/channel.ts`: what the local channel adds to a memory
 * call. The same vault, the same memory tool: `view` and `create` run in
 * process (createMemoryHandlers + runMemoryCommand, as the app serves Claude)
 * against the same calls made by another process's way in, the channel client
 * over the Unix socket to the app's handlers. Medians and p95 over
 * MNEMO_BENCH_CALLS calls each (default 300), then one JSON line. Benches
 * never assert; this machine is shared, so read the ratios.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { saveSettings } from '../../electron/core/chat/settings-store';
import { connectApp } from '../../electron/core/mcp/channel-client';
import { createMemoryHandlers } from '../../electron/core/memory/handlers';
import { runMemoryCommand } from '../../electron/core/memory/run';
import { createHandlers, dispatch } from '../../electron/main/handlers';

const CALLS = Number(process.env.MNEMO_BENCH_CALLS ?? 300);
const PASS = 'bench passphrase that is long enough';

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function time(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-channel-'));
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined, channel: {} });
  try {
    const created = await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }]);
    if (!created.ok) throw new Error(created.error.message);
    const vault = made.session.unlocked();
    await saveSettings(vault, { mcpAccess: 'read-write' });
    await made.channel.start();
    for (let i = 0; i < 50; i++) await vault.memory.writeFile(`/memories/seed/${i}.md`, `note ${i}\n`.repeat(20), { mode: 'create', source: 'user' });
    const backend = await connectApp({ stateDir: path.join(dir, 'state'), vaultId: vault.vaultId, via: 'mcp', client: 'bench', readOnly: false });
    if (!backend) throw new Error('the channel did not answer');
    const handlers = createMemoryHandlers(vault, { guardMode: () => 'block', source: 'cli' });
    const view = { command: 'view', path: '/memories/seed/7.md' };
    const rows: Array<[string, number[]]> = [
      ['view, in process', await time(CALLS, () => runMemoryCommand(handlers, view))],
      ['view, over the channel', await time(CALLS, () => backend.call(view))],
      ['create, in process', await time(CALLS, (i) => runMemoryCommand(handlers, { command: 'create', path: `/memories/a/${i}.md`, file_text: 'x'.repeat(500) }))],
      ['create, over the channel', await time(CALLS, (i) => backend.call({ command: 'create', path: `/memories/b/${i}.md`, file_text: 'x'.repeat(500) }))],
    ];
    const flood = performance.now();
    await Promise.all(Array.from({ length: 1000 }, () => backend.call(view)));
    const floodMs = performance.now() - flood;
    await backend.close();
    const result: Record<string, { median: number; p95: number }> = {};
    console.log(`${CALLS} calls each; ms`);
    console.log('call'.padEnd(28), 'median'.padStart(8), 'p95'.padStart(8));
    for (const [name, xs] of rows) {
      result[name] = { median: +quantile(xs, 0.5).toFixed(3), p95: +quantile(xs, 0.95).toFixed(3) };
      console.log(name.padEnd(28), result[name].median.toFixed(3).padStart(8), result[name].p95.toFixed(3).padStart(8));
    }
    const ratio = (a: string, b: string) => +(result[a]!.median / result[b]!.median).toFixed(2);
    console.log(`channel/in-process median: view ${ratio('view, over the channel', 'view, in process')}×, create ${ratio('create, over the channel', 'create, in process')}×`);
    console.log(`1,000 views sent at once over one connection: all answered in ${floodMs.toFixed(0)} ms (those past the queue with an error at once)`);
    console.log(JSON.stringify({ calls: CALLS, result, floodMs: +floodMs.toFixed(1) }));
  } finally {
    await made.session.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
