/**
 * `mnemo memory` holds the vault per input line (OpenOptions.lockPerCall), so
 * several of it, and other commands between its lines, share one vault.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { DEEP } from '../../deep';
import { CLI_BUNDLE, initVault, memoryLines, mnemo } from './helpers';
import { cliEnv } from '../../test-cli';

interface Answer {
  content: string;
  is_error: boolean;
}

let roots: string[] = [];
afterEach(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
  roots = [];
});

async function vaultForTest(): Promise<Awaited<ReturnType<typeof initVault>>> {
  const v = await initVault();
  roots.push(v.root);
  return v;
}

/** `mnemo memory` started with stdin left open: answers read a line at a time. */
function memoryProcess(vault: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI_BUNDLE, 'memory', '--vault', vault], { env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const answers: Answer[] = [];
  const waiters: Array<() => void> = [];
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    answers.push(JSON.parse(l) as Answer);
    waiters.splice(0).forEach((w) => w());
  });
  const code = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return {
    send: (...commands: object[]) => child.stdin.write(memoryLines(...commands)),
    end: () => child.stdin.end(),
    answers,
    /** Resolves once `n` answers have come. */
    async answered(n: number): Promise<Answer[]> {
      while (answers.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return answers.slice(0, n);
    },
    done: async () => ({ code: await code, stderr }),
  };
}

describe('mnemo memory held per line', () => {
  it('two processes fed lines at the same time answer every line without error and keep every write', async () => {
    const v = await vaultForTest();
    const n = DEEP ? 100 : 25;
    const first = await mnemo(['memory', '--vault', v.vault], { env: v.env, stdin: memoryLines({ command: 'create', path: '/memories/shared.md', file_text: 'start\n' }) });
    expect(first.code).toBe(0);
    const procs = ['a', 'b'].map((who) => ({ who, p: memoryProcess(v.vault, v.env) }));
    for (const { who, p } of procs) {
      const lines: object[] = [];
      for (let i = 0; i < n; i++) {
        lines.push({ command: 'create', path: `/memories/${who}/f${i}.md`, file_text: `${who} wrote ${i}` });
        // A read-modify-write of one file both change: a lost update would drop a line.
        lines.push({ command: 'insert', path: '/memories/shared.md', insert_line: 1, insert_text: `${who}-${i}` });
      }
      p.send(...lines);
      p.end();
    }
    for (const { p } of procs) {
      const end = await p.done();
      expect(end).toEqual({ code: 0, stderr: '' });
      expect(p.answers).toHaveLength(2 * n);
      expect(p.answers.filter((a) => a.is_error)).toEqual([]);
    }
    const shared = await mnemo(['cat', '/memories/shared.md', '--vault', v.vault], { env: v.env });
    const lines = shared.stdout.split('\n').filter((l) => l);
    expect(lines[0]).toBe('start');
    expect(lines.slice(1).sort()).toEqual(procs.flatMap(({ who }) => Array.from({ length: n }, (_, i) => `${who}-${i}`)).sort());
    for (const { who } of procs) {
      for (const i of [0, n - 1]) expect((await mnemo(['cat', `/memories/${who}/f${i}.md`, '--vault', v.vault], { env: v.env })).stdout).toBe(`${who} wrote ${i}`);
    }
    expect((await mnemo(['verify', '--vault', v.vault], { env: v.env })).code).toBe(0);
  }, 120_000);

  it('between its lines other commands open the vault, and it sees what they changed', async () => {
    const v = await vaultForTest();
    const p = memoryProcess(v.vault, v.env);
    p.send({ command: 'create', path: '/memories/one.md', file_text: 'from memory' });
    expect(await p.answered(1)).toEqual([{ content: 'File created successfully at: /memories/one.md', is_error: false }]);
    // The memory process is still running, unlocked, waiting for its next line.
    const ls = await mnemo(['ls', '--vault', v.vault], { env: v.env });
    expect(ls.code).toBe(0);
    expect(ls.stdout).toContain('/memories/one.md');
    const other = await mnemo(['memory', '--vault', v.vault], { env: v.env, stdin: memoryLines({ command: 'create', path: '/memories/two.md', file_text: 'from another process' }) });
    expect(other.code).toBe(0);
    p.send({ command: 'view', path: '/memories/two.md' });
    expect((await p.answered(2))[1]).toEqual({ content: "Here's the content of /memories/two.md with line numbers:\n     1\tfrom another process", is_error: false });
    p.end();
    expect(await p.done()).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});
