/**
 * `npm run bench:cli`: how fast the bundled `mnemo` (dist/cli.js, built first
 * if stale) starts: `mnemo --help`, and `mnemo ls` on a vault at the KDF
 * floor (2 passes, 64 MiB) minus one bare Argon2id derivation with the same
 * parameters (what the passphrase costs, measured in-process alongside; and
 * the same derivation in the bundle's own worker, its start-up included), each
 * the median of several runs, next to a bare `node -e 0`; and the fastest run
 * of each (what an idle machine gives: this one is shared). Prints a table,
 * then one JSON line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import sodium from 'libsodium-wrappers-sumo';
import { bundleCli, CLI_BUNDLE } from '../../electron/cli/bundle';

const RUNS = Number(process.env.MNEMO_BENCH_RUNS ?? 7);
const PASS = 'bench passphrase that is long enough';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  return ms;
}

/**
 * One derivation in the bundle's worker, as `mnemo` runs it: the whole time
 * from starting the thread to the key, and Argon2id's own part (cold: a fresh
 * thread runs it before V8 has optimised libsodium's WebAssembly).
 */
function workerKdf(): Promise<{ total: number; argon2: number }> {
  const t = performance.now();
  const worker = new Worker(path.join(path.dirname(CLI_BUNDLE), 'cli/kdf-worker.cjs'), { workerData: { password: new TextEncoder().encode(PASS), salt: new Uint8Array(16), opslimit: 2, memlimit: 64 * 1024 * 1024 } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { ms: number }) => resolve({ total: performance.now() - t, argon2: m.ms }));
    worker.once('error', reject);
  });
}

await bundleCli({ ifStale: true });
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-cli-'));
try {
  const env = { PATH: process.env.PATH, HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASS };
  const vault = path.join(root, 'vault');
  timed([CLI_BUNDLE, 'init', '--vault', vault, '--kdf-ops', '2', '--kdf-mem', '64', '--allow-weak'], env);
  await sodium.ready;
  const node: number[] = [];
  const help: number[] = [];
  const ls: number[] = [];
  const argon2: number[] = [];
  const inWorker: number[] = [];
  const coldArgon2: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so every figure sees the same machine load.
    node.push(timed(['-e', '0'], env));
    help.push(timed([CLI_BUNDLE, '--help'], env));
    ls.push(timed([CLI_BUNDLE, 'ls', '--vault', vault], env));
    const t = performance.now();
    sodium.crypto_pwhash(32, PASS, new Uint8Array(16), 2, 64 * 1024 * 1024, sodium.crypto_pwhash_ALG_ARGON2ID13);
    argon2.push(performance.now() - t);
    const w = await workerKdf();
    inWorker.push(w.total);
    coldArgon2.push(w.argon2);
  }
  const r = (x: number) => Math.round(x);
  const figures = { nodeMs: r(median(node)), helpMs: r(median(help)), lsMs: r(median(ls)), argon2Ms: r(median(argon2)), lsMinusKdfMs: r(median(ls) - median(argon2)), coldArgon2Ms: r(median(coldArgon2)), lsMinusColdKdfMs: r(median(ls) - median(coldArgon2)), workerKdfMs: r(median(inWorker)), lsMinusWorkerKdfMs: r(median(ls) - median(inWorker)) };
  console.log(`mnemo start-up (median of ${RUNS} runs, wall time of the whole process)`);
  console.log(`node -e 0            ${figures.nodeMs} ms`);
  console.log(`mnemo --help         ${figures.helpMs} ms`);
  console.log(`mnemo ls             ${figures.lsMs} ms, at the KDF floor (2 passes, 64 MiB). Less the KDF counted three ways:`);
  console.log(`  Argon2id warm, in this process:            ${figures.argon2Ms} ms; the rest ${figures.lsMinusKdfMs} ms`);
  console.log(`  Argon2id cold, in a fresh worker:          ${figures.coldArgon2Ms} ms; the rest ${figures.lsMinusColdKdfMs} ms`);
  console.log(`  the whole worker, thread start-up included: ${figures.workerKdfMs} ms; the rest ${figures.lsMinusWorkerKdfMs} ms`);
  const m = (xs: number[]) => r(Math.min(...xs));
  const fastest = { nodeMs: m(node), helpMs: m(help), lsMs: m(ls), coldArgon2Ms: m(coldArgon2), workerKdfMs: m(inWorker), lsMinusColdKdfMs: m(ls) - m(coldArgon2), lsMinusWorkerKdfMs: m(ls) - m(inWorker) };
  console.log(`fastest runs: node ${fastest.nodeMs} ms, --help ${fastest.helpMs} ms, ls ${fastest.lsMs} ms; cold Argon2id ${fastest.coldArgon2Ms} ms (rest ${fastest.lsMinusColdKdfMs} ms); whole worker ${fastest.workerKdfMs} ms (rest ${fastest.lsMinusWorkerKdfMs} ms)`);
  console.log(JSON.stringify({ median: figures, fastest }));
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
