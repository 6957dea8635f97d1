/**
 * `npm run bench`: our vault against the SDK's plaintext memory tool in one run.
 * Every figure is printed with the reference measured alongside it; the last
 * line is one JSON object with all of them. Targets (DESIGN.md, issue text):
 * median at 1,000 files ≤ 1.5× the plaintext reference; median at 10,000 files
 * ≤ 2× our own median at 10 files; unlock at default settings < 1.2 s; peak RSS
 * during the 10,000-file run < 400 MB.
 *
 * Then formats.ts in its own process: format 2 (several computers, the
 * default) against format 1 on one computer, each row a ratio to format 1
 * measured in the same run (sizes: MNEMO_BENCH_F2_MEMORIES, _WRITES, _TURNS;
 * MNEMO_BENCH_FORMATS=0 leaves it out).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import { parseHeader, VERSION_2 } from '../../electron/core/vault/header';
import { Vault } from '../../electron/core/vault/vault';
import type { SizeResult } from './workload';
import type { FormatRow } from './formats';

const SIZES = (process.env.MNEMO_BENCH_SIZES ?? '10,1000,10000').split(',').map(Number);
const ITERATIONS = Number(process.env.MNEMO_BENCH_ITERATIONS ?? 200);

function runChild(files: number): SizeResult {
  const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'workload.ts'), String(files), String(ITERATIONS)], {
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  if (res.status !== 0) throw new Error(`benchmark at ${files} files failed:\n${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as SizeResult;
}

/** Unlock at the calibrated default, next to a bare Argon2id derivation with the same parameters. */
async function measureUnlock(): Promise<{ unlockMs: number; argon2Ms: number; ratio: number; opslimit: number; memlimitMiB: number }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-unlock-'));
  try {
    const created = await Vault.create(path.join(dir, 'vault'), 'bench passphrase', { stateDir: path.join(dir, 'state') });
    await created.vault.close();
    // (Format 2, the default since 2ec6d05, writes version 2: read it.)
    const header = parseHeader(new Uint8Array(await fs.readFile(path.join(dir, 'vault', 'vault.json'))), VERSION_2);
    const slot = header.slots.find((s) => s.type === 'passphrase');
    if (slot?.type !== 'passphrase') throw new Error('no passphrase slot');
    const { opslimit, memlimit } = slot.kdf;
    const samples: number[] = [];
    const refs: number[] = [];
    await sodium.ready;
    for (let i = 0; i < 3; i++) {
      const vault = await Vault.open(path.join(dir, 'vault'), { stateDir: path.join(dir, 'state') });
      let t = performance.now();
      await vault.unlock('bench passphrase');
      samples.push(performance.now() - t);
      await vault.close();
      t = performance.now();
      sodium.crypto_pwhash(32, 'bench passphrase', new Uint8Array(16), opslimit, memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13);
      refs.push(performance.now() - t);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const unlockMs = Math.round(med(samples));
    const argon2Ms = Math.round(med(refs));
    return { unlockMs, argon2Ms, ratio: Math.round((unlockMs / argon2Ms) * 100) / 100, opslimit, memlimitMiB: memlimit / 2 ** 20 };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

const unlock = await measureUnlock();
console.log(`unlock (calibrated: ${unlock.opslimit} ops, ${unlock.memlimitMiB} MiB): ${unlock.unlockMs} ms; bare Argon2id ${unlock.argon2Ms} ms; ratio ${unlock.ratio}`);

const results: SizeResult[] = [];
for (const files of SIZES) {
  const r = runChild(files);
  results.push(r);
  console.log(`\n${files} files (${ITERATIONS} runs per command; ms; peak RSS ${r.peakRssMB} MB)`);
  console.log(`${'command'.padEnd(12)}${pad('vault med', 11)}${pad('vault p99', 11)}${pad('plain med', 11)}${pad('plain p99', 11)}${pad('ratio', 8)}`);
  for (const [name, c] of Object.entries(r.commands)) {
    console.log(`${name.padEnd(12)}${pad(c.vault.median, 11)}${pad(c.vault.p99, 11)}${pad(c.reference.median, 11)}${pad(c.reference.p99, 11)}${pad(c.ratio, 8)}`);
  }
}

const smallest = results[0]!;
const largest = results[results.length - 1]!;
const growth = Object.fromEntries(
  Object.keys(largest.commands).map((name) => [name, Math.round((largest.commands[name]!.vault.median / smallest.commands[name]!.vault.median) * 100) / 100]),
);
console.log(`\ngrowth of our median from ${smallest.files} to ${largest.files} files: ${JSON.stringify(growth)}`);

let formats: FormatRow[] | undefined;
if (process.env.MNEMO_BENCH_FORMATS !== '0') {
  // Its own process, with a GC it may force, so the heap it measures is its own.
  const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(import.meta.dirname, 'formats.ts')], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  if (res.status !== 0) throw new Error(`format benchmark failed:\n${res.stderr}`);
  formats = JSON.parse(res.stdout.trim().split('\n').pop()!) as FormatRow[];
  console.log(`\nformat 2 (several computers, the default) against format 1, one computer`);
  console.log(`${'measure'.padEnd(48)}${pad('format 2', 12)}${pad('format 1', 12)}${pad('ratio', 8)}  unit`);
  for (const r of formats) console.log(`${r.measure.padEnd(48)}${pad(r.format2, 12)}${pad(r.format1, 12)}${pad(r.ratio, 8)}  ${r.unit}`);
}
console.log(JSON.stringify({ unlock, sizes: results, growth, ...(formats ? { formats } : {}) }));
