/**
 * The rig the multi-process per-call tests share: percall-child.ts bundled
 * once per file, a child process driven line by line (`Proc`), and what the
 * vault must hold once writers ran (`Expected`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { beforeAll, expect } from 'vitest';
import type { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { bundleChild } from './bundle-child';
import { cleanupsAfterEach } from './lock-children';
import type { Change, Command } from './percall-child';

export const cleanup = cleanupsAfterEach();
let CHILD: string;
beforeAll(async () => {
  CHILD = await bundleChild(path.join(import.meta.dirname, 'percall-child.ts'));
}, 60_000);

export type Line = { ready?: true; ok?: true; text?: string; error?: string; message?: string; begin?: Change; ack?: Change; done?: true };

/** A percall-child.ts process: its lines as they come, answers to commands, and its end. */
export class Proc {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiting: Array<(l: Line) => void> = [];
  private readonly queued: Line[] = [];
  stderr = '';

  constructor(dir: string, state: string, opts: OpenOptions, onLine?: (l: Line) => void) {
    this.proc = spawn(process.execPath, [CHILD, dir, state, JSON.stringify(opts)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdin.on('error', () => undefined);
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    readline.createInterface({ input: this.proc.stdout }).on('line', (text) => {
      const l = JSON.parse(text) as Line;
      onLine?.(l);
      if (l.begin || l.ack) return;
      const w = this.waiting.shift();
      if (w) w(l);
      else this.queued.push(l);
    });
    // 'exit' comes once the process is reaped: it is gone, whatever became of its pid.
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    cleanup(async () => {
      this.proc.kill('SIGKILL');
      await this.exited;
    });
  }

  /** The next answer line (not a writer's begin/ack). */
  next(): Promise<Line> {
    const l = this.queued.shift();
    return l ? Promise.resolve(l) : new Promise((resolve) => this.waiting.push(resolve));
  }

  send(cmd: Command): void {
    this.proc.stdin.write(JSON.stringify(cmd) + '\n');
  }

  ask(cmd: Command): Promise<Line> {
    this.send(cmd);
    return this.next();
  }
}

/**
 * What the vault must hold after writers ran: each file the last value
 * acknowledged for it, or a value begun after that (by a writer killed before
 * its acknowledgement); the shared file every acknowledged line exactly once,
 * lines begun and never acknowledged at most once, and nothing else.
 */
export class Expected {
  private readonly files = new Map<string, { acked: string | undefined; begun: string[] }>();
  private readonly lines = new Map<string, 'acked' | 'begun'>();
  acks = 0;

  see(l: Line): void {
    const c = l.begin ?? l.ack;
    if (!c) return;
    if (c.kind === 'line') {
      this.lines.set(c.value, l.ack ? 'acked' : 'begun');
    } else {
      const f = this.files.get(c.p) ?? { acked: undefined, begun: [] };
      if (l.ack) this.files.set(c.p, { acked: c.value, begun: [] });
      else this.files.set(c.p, { acked: f.acked, begun: [...f.begun, c.value] });
    }
    if (l.ack) this.acks++;
  }

  async check(v: Vault, shared: string): Promise<void> {
    for (const [p, f] of this.files) {
      const meta = v.memory.stat(p);
      const now = meta ? (await v.memory.readFile(p)).split('\n')[0] : undefined;
      expect([f.acked, ...f.begun], p).toContain(now);
    }
    const text = v.memory.stat(shared) ? await v.memory.readFile(shared) : '';
    const got = text.split('\n').filter((x) => x);
    expect(new Set(got).size, 'no line appended twice').toBe(got.length);
    for (const x of got) expect(this.lines.has(x), `${x} was written by a writer`).toBe(true);
    const acked = [...this.lines].filter(([, s]) => s === 'acked').map(([x]) => x);
    expect(got).toEqual(expect.arrayContaining(acked));
  }
}

/** Answers with an `error` code (IN_USE, LOCKED…) fail the test with the child's message. */
export function ok(l: Line): Line {
  expect(l.error === undefined ? 'ok' : `${l.error}: ${l.message}`).toBe('ok');
  return l;
}

export const SHARED = '/memories/shared.md';
export const WAIT = { lockPerCall: true, lockWaitMs: 120_000 } as const;
