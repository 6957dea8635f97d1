/** Shared set-up for the tests that hold a vault's lock from child processes (lock-child.ts). */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach } from 'vitest';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { Vault } from '../../../electron/core/vault/vault';
import { FLOOR, PASS } from './helpers';

export interface Child {
  proc: ChildProcessWithoutNullStreams;
  next(): Promise<string>;
  exited: Promise<void>;
}

/** A started child process, its stdout read a line at a time with `next()`. */
export function lineChild(proc: ChildProcessWithoutNullStreams): Child {
  const lines = readline.createInterface({ input: proc.stdout });
  const queue: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  lines.on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  const exited = new Promise<void>((resolve) => proc.on('close', () => resolve()));
  return {
    proc,
    exited,
    next: () => {
      const l = queue.shift();
      return l !== undefined ? Promise.resolve(l) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** Runs what is pushed, last first, after each test; returns the push. */
export function cleanupsAfterEach(): (c: () => Promise<void>) => void {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups = [];
  });
  return (c) => void cleanups.push(c);
}

/** A closed vault at `root/vault` with its state at `root/state`, under a temp `root` named from `prefix` and removed by `cleanup`. */
export async function madeVault(prefix: string, cleanup: (c: () => Promise<void>) => void): Promise<{ root: string; dir: string; state: string }> {
  await cryptoReady();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanup(() => fs.rm(root, { recursive: true, force: true }));
  const dir = path.join(root, 'vault');
  const state = path.join(root, 'state');
  const made = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: state });
  await made.vault.close();
  return { root, dir, state };
}
