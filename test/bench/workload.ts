/**
 * One benchmark size in its own process (so its peak RSS is its own): fills a
 * store with N memories, then times each memory-tool command against our vault
 * and against the SDK's plaintext BetaLocalFilesystemMemoryTool, interleaved so
 * both see the same machine load. Prints one JSON line.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { Vault } from '../../electron/core/vault/vault';
import { createMemoryHandlers } from '../../electron/core/memory/handlers';

const FLOOR_KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const BODY = 'The user prefers short answers with examples.\n'.repeat(10);

export interface CommandFigures {
  vault: { median: number; p99: number };
  reference: { median: number; p99: number };
  ratio: number;
}
export interface SizeResult {
  files: number;
  commands: Record<string, CommandFigures>;
  peakRssMB: number;
}

type Step = (h: MemoryToolHandlers, i: number) => unknown;

/** Each command works on a fixed working set under /memories/bench, so only the background size varies. */
const STEPS: Record<string, Step> = {
  'view file': (h, i) => h.view({ command: 'view', path: `/memories/bench/w${i % 10}.md` }),
  'view dir': (h) => h.view({ command: 'view', path: '/memories/bench' }),
  create: (h, i) => h.create({ command: 'create', path: `/memories/bench/new/c${i}.md`, file_text: BODY }),
  str_replace: (h, i) =>
    h.str_replace({ command: 'str_replace', path: `/memories/bench/w${i % 10}.md`, old_str: `marker ${i % 10}:${Math.floor(i / 10)}`, new_str: `marker ${i % 10}:${Math.floor(i / 10) + 1}` }),
  insert: (h, i) => h.insert({ command: 'insert', path: `/memories/bench/log.md`, insert_line: 0, insert_text: `entry ${i}` }),
  rename: (h, i) => h.rename({ command: 'rename', old_path: `/memories/bench/new/c${i}.md`, new_path: `/memories/bench/moved/c${i}.md` }),
  delete: (h, i) => h.delete({ command: 'delete', path: `/memories/bench/moved/c${i}.md` }),
};

async function fill(h: MemoryToolHandlers, files: number): Promise<void> {
  for (let i = 0; i < files; i++) {
    await h.create({ command: 'create', path: `/memories/bg/d${i % 100}/f${i}.md`, file_text: `${BODY}file ${i}\n` });
  }
  for (let w = 0; w < 10; w++) {
    await h.create({ command: 'create', path: `/memories/bench/w${w}.md`, file_text: `${BODY}marker ${w}:0\n` });
  }
  await h.create({ command: 'create', path: '/memories/bench/log.md', file_text: 'log\n' });
}

function summarise(samples: number[]): { median: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: round(at(0.5)), p99: round(at(0.99)) };
}
const round = (ms: number) => Math.round(ms * 1000) / 1000;

async function time(fn: () => unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function runSize(files: number, iterations: number): Promise<SizeResult> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-'));
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const reference = await BetaLocalFilesystemMemoryTool.init(path.join(root, 'plain'));
    const { vault } = await Vault.create(path.join(root, 'vault'), 'bench passphrase', { kdf: FLOOR_KDF, stateDir: path.join(root, 'state') });
    const ours = createMemoryHandlers(vault, { guardMode: () => 'block', source: 'claude' });
    await fill(reference, files);
    await fill(ours, files);
    const commands: Record<string, CommandFigures> = {};
    for (const [name, step] of Object.entries(STEPS)) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < iterations; i++) {
        // Alternate which goes first so neither always runs on a warmer cache.
        if (i % 2) {
          a.push(await time(() => step(ours, i)));
          b.push(await time(() => step(reference, i)));
        } else {
          b.push(await time(() => step(reference, i)));
          a.push(await time(() => step(ours, i)));
        }
      }
      const v = summarise(a);
      const r = summarise(b);
      commands[name] = { vault: v, reference: r, ratio: round(v.median / r.median) };
    }
    await vault.close();
    return { files, commands, peakRssMB: Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20) };
  } finally {
    clearInterval(sampler);
    await fs.rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const files = Number(process.argv[2]);
  const iterations = Number(process.argv[3] ?? 200);
  process.stdout.write(JSON.stringify(await runSize(files, iterations)) + '\n');
}
