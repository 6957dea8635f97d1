import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { bundleChild } from './bundle-child';
import { contentOf } from './crash-writer-content';
import { PASS, tempVault, type TempVault } from './helpers';

/**
 * Kill a writing process with SIGKILL at random moments; after each kill the
 * vault must open and hold every write it acknowledged. 200 kills under
 * `npm run test:deep`, 40 in `npm test` (MNEMO_CRASH_KILLS overrides both).
 * Two lanes: one driven by a fixed seed, one by a random seed that is printed.
 */
const KILLS = Number(process.env.MNEMO_CRASH_KILLS ?? (DEEP ? 200 : 24));
const SEEDS = [FIXED_SEED, randomSeed('crash: SIGKILL lane 1')];
let bundle: string;
const lanes: TempVault[] = [];

beforeAll(async () => {
  bundle = await bundleChild(path.join(import.meta.dirname, 'crash-writer.ts'));
  for (let i = 0; i < SEEDS.length; i++) {
    const t = await tempVault();
    await t.vault.close();
    lanes.push(t);
  }
}, 60_000);
afterAll(async () => {
  for (const t of lanes) await fs.rm(t.root, { recursive: true, force: true });
});

type Model = { files: Record<string, string>; setting: number | null };
type Op = { op: 'write'; p: string; h: string } | { op: 'rename'; p: string; to: string } | { op: 'delete'; p: string } | { op: 'setting'; n: number };

function apply(m: Model, op: Op): Model {
  const files = { ...m.files };
  if (op.op === 'write') files[op.p] = op.h;
  else if (op.op === 'rename') {
    files[op.to] = files[op.p]!;
    delete files[op.p];
  } else if (op.op === 'delete') delete files[op.p];
  return { files, setting: op.op === 'setting' ? op.n : m.setting };
}

interface Run {
  dump: Model | undefined;
  acked: Op[];
  inflight: Op | undefined;
}

/** Runs the writer once, kills it at a random moment, and returns what it reported. */
function runOnce(t: TempVault, seed: number, random: () => number, early: boolean): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, t.dir, t.stateDir, PASS, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let stderr = '';
    const run: Run = { dump: undefined, acked: [], inflight: undefined };
    const kill = () => child.kill('SIGKILL');
    // Mostly while writing, sometimes (`early`) during start-up and unlock.
    let timer = early ? setTimeout(kill, random() * 250) : undefined;
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl)) as { dump?: Record<string, string>; setting?: number | null; begin?: Op; ack?: Op };
        buf = buf.slice(nl + 1);
        if (msg.dump) {
          run.dump = { files: msg.dump, setting: msg.setting ?? null };
          timer ??= setTimeout(kill, random() * 120);
        } else if (msg.begin) run.inflight = msg.begin;
        else if (msg.ack) {
          run.acked.push(msg.ack);
          run.inflight = undefined;
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code}: ${stderr}`));
      else resolve(run);
    });
  });
}

async function lane(t: TempVault, index: number, kills: number): Promise<number> {
  // The seed picks each writer's operations and when it is killed (the moment itself also rides on scheduling).
  const seed = SEEDS[index]!;
  const random = prng(seed);
  let model: Model = { files: {}, setting: null };
  let pending: Op | undefined;
  let checked = 0;
  for (let k = 0; k < kills; k++) {
    // Every seventh run is killed at any moment (chosen by count, not drawn, so the share that reaches writing is certain).
    const run = await runOnce(t, ((seed % 20_000) * 100_000 + k + 1) % 2 ** 31, random, k % 7 === 6);
    if (run.dump) {
      // What the vault holds now must be every acknowledged change, plus at most the one that was in flight.
      const candidates = [model, ...(pending ? [apply(model, pending)] : [])];
      expect(candidates, `lane ${index} (seed ${seed}) kill ${k}`).toContainEqual(run.dump);
      model = run.dump;
      for (const op of run.acked) model = apply(model, op);
      pending = run.inflight;
      checked++;
    }
  }
  // A final open in this process: same check, plus a full verify.
  const vault = await Vault.open(t.dir, { stateDir: t.stateDir });
  await vault.unlock(PASS);
  const files: Record<string, string> = {};
  for (const e of vault.memory.list('/memories', Infinity)) {
    if (e.kind === 'file') files[e.path] = createHash('sha256').update(await vault.memory.readFile(e.path)).digest('hex').slice(0, 16);
  }
  const setting = (await vault.internal.getJSON<{ n: number }>('settings'))?.n ?? null;
  expect([model, ...(pending ? [apply(model, pending)] : [])]).toContainEqual({ files, setting });
  const report = await vault.verify();
  await vault.close();
  expect(report).toEqual({ ok: true, problems: [] });
  return checked;
}

it(`after ${KILLS} SIGKILLs at random moments every acknowledged write is intact`, async () => {
  expect(contentOf(3)).toContain('entry 3');
  const checked = await Promise.all(lanes.map((t, i) => lane(t, i, Math.ceil(KILLS / lanes.length))));
  // Most runs reach the writing loop; the rest were killed while starting.
  expect(checked.reduce((a, b) => a + b, 0)).toBeGreaterThan(KILLS * 0.6);
}, DEEP ? 600_000 : 300_000);
