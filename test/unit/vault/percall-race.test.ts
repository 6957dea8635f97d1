/**
 * A race of every kind of holder on one vault at once: the app (held while
 * unlocked, locking and unlocking in a loop and writing), two per-call writers
 * with small journal limits (checkpoints, compaction, segment collection under
 * each other's cached readers), a passphrase change and then a key rotation by
 * a further per-call holder while they write. Every acknowledged write must be
 * there at the end, and the vault must verify.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { beforeAll, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { bundleChild } from './bundle-child';
import { PASS } from './helpers';
import { cleanupsAfterEach, madeVault } from './lock-children';
import type { Change, Command } from './percall-child';

const cleanup = cleanupsAfterEach();
let CHILD: string;
beforeAll(async () => {
  CHILD = await bundleChild(path.join(import.meta.dirname, 'percall-child.ts'));
}, 60_000);

type Line = { ready?: true; ok?: true; text?: string; error?: string; message?: string; begin?: Change; ack?: Change; done?: true };

/** A percall-child.ts process: its lines as they come, answers to commands, and its end. */
class Proc {
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
class Expected {
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
function ok(l: Line): Line {
  expect(l.error === undefined ? 'ok' : `${l.error}: ${l.message}`).toBe('ok');
  return l;
}

const SHARED = '/memories/shared.md';
const WAIT = { lockPerCall: true, lockWaitMs: 120_000 } as const;

const NEW_PASS = 'the passphrase after the change, mid-race';

it(`the app locking and unlocking, two per-call writers, a passphrase change and a key rotation, all at once: nothing acknowledged is lost (${DEEP ? 40 : 8} app rounds)`, async () => {
  const { dir, state } = await madeVault('mnemo-race-', cleanup);
  const expected = new Expected();
  const seed = randomSeed('percall race');
  const writers = ['a', 'b'].map(
    (who, i) => ({ who, p: new Proc(dir, state, { ...WAIT, journalLimit: 5 + 4 * i }, (l) => expected.see(l)) }),
  );
  const app = new Proc(dir, state, { releaseWhenLocked: true, lockWaitMs: 120_000, journalLimit: 7 });
  for (const x of [...writers.map((w) => w.p), app]) expect(await x.next()).toEqual({ ready: true });
  for (const w of writers) ok(await w.p.ask({ op: 'unlock', pass: PASS }));
  for (const [i, w] of writers.entries()) w.p.send({ op: 'writer', who: w.who, run: 0, n: -1, seed: i ? seed : FIXED_SEED, shared: SHARED });
  const me = await Vault.open(dir, { stateDir: state, ...WAIT });
  cleanup(() => me.close());
  await me.unlock(PASS);
  const rounds = DEEP ? 40 : 8;
  const appFiles = new Map<string, string>();
  let pass = PASS;
  for (let r = 0; r < rounds; r++) {
    ok(await app.ask({ op: 'unlock', pass }));
    for (let k = 0; k < 3; k++) {
      const p = `/memories/app/r${r % 4}-${k}.md`;
      const text = `app round ${r} file ${k}\n` + 'y'.repeat(3000 * (k + 1));
      ok(await app.ask({ op: 'write', p, text }));
      appFiles.set(p, text);
    }
    ok(await app.ask({ op: 'lock' }));
    if (r === Math.floor(rounds / 3)) {
      await me.changePassphrase(PASS, NEW_PASS);
      pass = NEW_PASS;
    }
  }
  // Keys rotated while the writers write: each one's next call ends its session (LOCKED), which ends its loop.
  await me.rotateKeys(NEW_PASS);
  for (const w of writers) {
    const end = await w.p.next();
    expect(end.error ?? 'done', end.message).toBe('LOCKED');
  }
  ok(await app.ask({ op: 'unlock', pass: NEW_PASS }));
  for (const [p, text] of appFiles) expect((await app.ask({ op: 'read', p })).text, p).toBe(text);
  ok(await app.ask({ op: 'close' }));
  for (const w of writers) ok(await w.p.ask({ op: 'close' }));
  await me.close();
  console.log(`percall race: ${expected.acks} acknowledged writer changes, ${rounds * 3} app writes`);
  expect(expected.acks).toBeGreaterThan(rounds);
  const v = await Vault.open(dir, { stateDir: state });
  try {
    await v.unlock(NEW_PASS);
    await expected.check(v, SHARED);
    for (const [p, text] of appFiles) expect(await v.memory.readFile(p)).toBe(text);
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    expect((await fs.readdir(dir)).filter((n) => n.includes('tmp'))).toEqual([]);
  } finally {
    await v.close();
  }
}, DEEP ? 900_000 : 300_000);

it(`the app and per-call writers killed with SIGKILL at ${DEEP ? 100 : 12} random moments while a per-call writer keeps writing lose nothing acknowledged`, async () => {
  const { dir, state } = await madeVault('mnemo-race-', cleanup);
  const expected = new Expected();
  const steady = new Proc(dir, state, { ...WAIT, journalLimit: 4 }, (l) => expected.see(l));
  expect(await steady.next()).toEqual({ ready: true });
  ok(await steady.ask({ op: 'unlock', pass: PASS }));
  steady.send({ op: 'writer', who: 'steady', run: 0, n: -1, seed: FIXED_SEED, shared: SHARED });
  const seed = randomSeed('percall race: SIGKILL');
  const random = prng(seed);
  const kills = DEEP ? 100 : 12;
  for (let run = 1; run <= kills; run++) {
    // Every other victim is the app: it holds the vault from its unlock until it is killed.
    const opts: OpenOptions = run % 2 ? { ...WAIT, journalLimit: 3 } : { releaseWhenLocked: true, lockWaitMs: 120_000, journalLimit: 3 };
    let failure: Line | undefined;
    let timer: NodeJS.Timeout | undefined;
    const victim = new Proc(dir, state, opts, (l) => {
      expected.see(l);
      if (l.error) {
        failure = l;
        victim.proc.kill('SIGKILL');
      }
      if (l.ack) timer ??= setTimeout(() => victim.proc.kill('SIGKILL'), random() * 120);
    });
    victim.send({ op: 'unlock', pass: PASS });
    victim.send({ op: 'writer', who: `victim${run % 2}`, run, n: -1, seed: seed + run, shared: SHARED });
    const end = await victim.exited;
    clearTimeout(timer);
    expect(failure).toBeUndefined();
    expect(end.signal, victim.stderr).toBe('SIGKILL');
  }
  steady.send({ op: 'stop' });
  ok(await steady.next());
  ok(await steady.ask({ op: 'close' }));
  const v = await Vault.open(dir, { stateDir: state });
  try {
    await v.unlock(PASS);
    await expected.check(v, SHARED);
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
  } finally {
    await v.close();
  }
}, DEEP ? 900_000 : 300_000);
