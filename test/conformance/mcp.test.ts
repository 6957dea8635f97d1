/**
 * `mnemo mcp` and `mnemo memory` answer every memory-tool call identically:
 * the same inputs, fed call by call to both (the real CLI bundle, each on a
 * vault of its own), compared answer for answer, string for string. The
 * inputs are the hand-written sequences, the cases where we are right where
 * the SDK's reference is wrong, and seeded random sequences.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMemoryCommand } from '../../electron/core/memory/run';
import { DEEP } from '../deep';
import { CLI_BUNDLE, initVault, tempDir } from '../unit/cli/helpers';
import { startMcp, type McpSession } from '../unit/mcp/helpers';
import { nextCall, prng } from './random';
import { SEQUENCES } from './sequences';

type Answer = { content: string; is_error: boolean };

/** A long-running `mnemo memory`: one JSON line in, one answer line out. */
class MemoryLines {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly answers: AsyncIterator<string>;
  constructor(vault: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [CLI_BUNDLE, 'memory', '--vault', vault], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.answers = readline.createInterface({ input: this.child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
  }
  async run(input: unknown): Promise<Answer> {
    this.child.stdin.write(JSON.stringify(input) + '\n');
    const next = await this.answers.next();
    if (next.done) throw new Error('mnemo memory stopped answering');
    return JSON.parse(next.value) as Answer;
  }
  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.once('close', resolve));
  }
}

let roots: string[] = [];
let cli: MemoryLines;
let mcp: McpSession;

beforeAll(async () => {
  const [a, b] = await Promise.all([initVault(), initVault()]);
  roots = [a.root, b.root];
  cli = new MemoryLines(a.vault, a.env);
  mcp = await startMcp(b.vault, b.env, { name: 'conformance' });
});
afterAll(async () => {
  await Promise.all([cli?.close(), mcp?.close()]);
  await Promise.all(roots.map((r) => fs.rm(r, { recursive: true, force: true })));
});

interface Step {
  input: unknown;
  cli: Answer;
  mcp: Answer;
}

async function both(input: unknown): Promise<Step> {
  return { input, cli: await cli.run(input), mcp: await mcp.memory(input as Record<string, unknown>) };
}

function firstDifference(steps: Step[]): string | undefined {
  const i = steps.findIndex((s) => s.cli.content !== s.mcp.content || s.cli.is_error !== s.mcp.is_error);
  if (i === -1) return undefined;
  const s = steps[i]!;
  return `step ${i}: ${JSON.stringify(s.input).slice(0, 300)}\nmnemo memory: ${JSON.stringify(s.cli).slice(0, 500)}\nmnemo mcp:    ${JSON.stringify(s.mcp).slice(0, 500)}`;
}

/** Deletes, on both sides, every top-level name `inputs` touched, so the next sequence starts from an empty /memories. */
async function reset(inputs: readonly unknown[]): Promise<void> {
  const tops = new Set<string>();
  for (const input of inputs) {
    for (const key of ['path', 'old_path', 'new_path']) {
      const p = (input as Record<string, unknown>)[key];
      const top = typeof p === 'string' ? /^\/memories\/([^/]+)/.exec(p)?.[1] : undefined;
      if (top) tops.add(`/memories/${top}`);
    }
  }
  for (const p of tops) await both({ command: 'delete', path: p });
  const empty = await both({ command: 'view', path: '/memories' });
  expect(empty.mcp).toEqual(empty.cli);
  expect(empty.mcp.content.split('\n')).toHaveLength(2);
}

/** Cases where we are right and the reference is wrong (conformance/fixes.test.ts): the two ways in must still agree. */
const FIXES: unknown[] = [
  { command: 'create', path: '/memories/m.md', file_text: 'a\nb\nc\nd\ntea and tea\naaa\n' },
  { command: 'str_replace', path: '/memories/m.md', old_str: 'b\nc', new_str: 'B\nC' },
  { command: 'str_replace', path: '/memories/m.md', old_str: 'tea', new_str: 'milk' },
  { command: 'str_replace', path: '/memories/m.md', old_str: 'aa', new_str: 'b' },
  { command: 'str_replace', path: '/memories/m.md', old_str: '' },
  { command: 'str_replace', path: '/memories/m.md', old_str: 'd\n' },
  { command: 'view', path: '/memories/m.md', view_range: [5, 2] },
  { command: 'view', path: '/memories/m.md', view_range: [0, 99] },
  { command: 'view', path: '/memories/m.md', view_range: [1] },
  { command: 'rename', old_path: '/memories/d', new_path: '/memories/d/inside' },
  { command: 'create', path: '/memories/d/x.md', file_text: 'x' },
  { command: 'rename', old_path: '/memories/d', new_path: '/memories/d/inside' },
  { command: 'create', path: '/memories/m.md/under-a-file.md', file_text: 'x' },
  { command: 'create', path: '/memories/../escape.md', file_text: 'x' },
  { command: 'create', path: '/memories/%2e%2e%2fescape.md', file_text: 'x' },
  { command: 'view', path: '/memoriesX' },
  { command: 'create', path: '/memories/key.md', file_text: 'sk-ant-api03-' + 'A'.repeat(93) + 'AA' },
  { command: 'insert', path: '/memories/m.md', insert_line: 1.5, insert_text: 'x' },
  { command: 'delete', path: '/memories' },
  { command: 'rename', old_path: '/memories', new_path: '/memories/x' },
  { command: 'view', path: '/memories' },
];

describe('mnemo mcp answers as mnemo memory does', () => {
  for (const [name, inputs] of Object.entries({ ...SEQUENCES, 'where we are right and the reference is wrong': FIXES })) {
    it(name, async () => {
      const steps: Step[] = [];
      for (const input of inputs) steps.push(await both(input));
      expect(firstDifference(steps)).toBeUndefined();
      expect(steps.some((s) => !s.mcp.is_error)).toBe(true);
      await reset(inputs);
    });
  }

  const SEEDS = DEEP ? [1, 2, 3, 4, 20261122] : [1, 20261122];
  const CALLS = 300;
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${CALLS} random calls`, async () => {
      // The SDK's reference only steers the generator (its state decides which calls make sense next).
      const base = await tempDir();
      try {
        const reference = await BetaLocalFilesystemMemoryTool.init(base);
        const rng = prng(seed);
        const steps: Step[] = [];
        for (let i = 0; i < CALLS; i++) {
          const input = nextCall(rng, path.join(base, 'memories'));
          await runMemoryCommand(reference, input);
          steps.push(await both(input));
        }
        expect(firstDifference(steps)).toBeUndefined();
        const succeeded = new Set(steps.filter((s) => !s.mcp.is_error).map((s) => (s.input as { command: string }).command));
        expect([...succeeded].sort()).toEqual(['create', 'delete', 'insert', 'rename', 'str_replace', 'view']);
        await reset(steps.map((s) => s.input));
      } finally {
        await fs.rm(base, { recursive: true, force: true });
      }
    });
  }
});
