import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { Vault } from '../../../electron/core/vault/vault';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { VaultError } from '../../../electron/core/vault/types';
import { DEEP } from '../../deep';
import { bundleChild } from './bundle-child';
import { lineChild, type Child } from './lock-children';

/** lock-child.ts, bundled: nine processes start per trial, each in tens of milliseconds instead of a second under tsx. */
let CHILD: string;
beforeAll(async () => {
  CHILD = await bundleChild(path.join(import.meta.dirname, 'lock-child.ts'));
}, 60_000);

function start(dir: string): Child {
  return lineChild(spawn(process.execPath, [CHILD, dir, path.join(path.dirname(dir), 'state')], { stdio: ['pipe', 'pipe', 'pipe'] }));
}

let roots: string[] = [];
afterEach(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
  roots = [];
});
async function tempDir(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-lock-'));
  roots.push(root);
  return root;
}

describe('the vault lock', () => {
  it('after the holder is killed, exactly one of eight processes started at once gets the vault, every time', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'vault');
    const made = await Vault.create(dir, 'correct horse battery staple', { kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, stateDir: path.join(root, 'state') });
    await made.vault.close();
    // Every trial is a fresh race; `npm run test:deep` runs 20 of them.
    const TRIALS = DEEP ? 20 : 8;
    const winners: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const holder = start(dir);
      expect(await holder.next()).toBe('ready');
      holder.proc.stdin.write('go\n');
      expect(await holder.next()).toBe('won');
      holder.proc.kill('SIGKILL');
      await holder.exited;

      const racers = Array.from({ length: 8 }, () => start(dir));
      for (const r of racers) expect(await r.next()).toBe('ready');
      for (const r of racers) r.proc.stdin.write('go\n');
      const answers = await Promise.all(racers.map((r) => r.next()));
      winners.push(answers.filter((a) => a === 'won').length);
      for (const a of answers.filter((x) => x !== 'won')) expect(a).toMatch(/^IN_USE .*open in another Mnemo window/);
      for (const r of racers) r.proc.stdin.end();
      await Promise.all(racers.map((r) => r.exited));
    }
    expect(winners).toEqual(Array(TRIALS).fill(1));
  }, DEEP ? 600_000 : 120_000);

  it('a lock file naming a live but unrelated process (a reused pid) does not keep the vault shut', async () => {
    await cryptoReady();
    const dir = await tempDir();
    for (const pid of [process.ppid, process.pid, 1]) {
      await fs.writeFile(path.join(dir, '.lock'), `${pid}\n`);
      const release = await acquireLock(dir);
      release();
    }
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host: os.hostname(), pid: process.ppid, started: 1 }) + '\n');
    const release = await acquireLock(dir);
    release();
  });

  it('a second open in the same process is refused while the first holds the vault, and allowed after release', async () => {
    await cryptoReady();
    const dir = await tempDir();
    const release = await acquireLock(dir);
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IN_USE' });
    release();
    (await acquireLock(dir))();
  });

  it('a lock record written by another computer (a synced folder) refuses the vault naming that computer', async () => {
    await cryptoReady();
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host: 'other-laptop', pid: 4242, started: 1 }) + '\n');
    const err = await acquireLock(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VaultError);
    expect((err as VaultError).code).toBe('IN_USE');
    expect((err as VaultError).message).toContain('open on other-laptop');
    expect((err as VaultError).message).not.toContain(dir);
  });

  it('a read-only lock changes nothing in the vault folder, yet still excludes a writer', async () => {
    await cryptoReady();
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'vault.json'), '{}');
    const before = await fs.readdir(dir);
    const mtime = (await fs.stat(dir)).mtimeMs;
    const release = await acquireLock(dir, { readOnly: true });
    expect(await fs.readdir(dir)).toEqual(before);
    expect((await fs.stat(dir)).mtimeMs).toBe(mtime);
    // A second reader may read beside it.
    (await acquireLock(dir, { readOnly: true }))();
    // The refused writer leaves only the (empty) file its lock lives on.
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IN_USE' });
    release();
    expect((await fs.readdir(dir)).sort()).toEqual(['.vault.lock', ...before].sort());
    // Now that the lock file exists, readers lock it, still without changing anything, and still exclude a writer.
    const now = await fs.readdir(dir);
    const release2 = await acquireLock(dir, { readOnly: true });
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IN_USE' });
    release2();
    expect(await fs.readdir(dir)).toEqual(now);
    expect((await fs.stat(path.join(dir, '.vault.lock'))).size).toBe(0);
  });

  it('a writer holding the vault keeps readers out, and a reader that found no lock file keeps out a writer that makes one', async () => {
    await cryptoReady();
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'vault.json'), '{}');
    const writer = await acquireLock(dir);
    await expect(acquireLock(dir, { readOnly: true })).rejects.toMatchObject({ code: 'IN_USE' });
    writer();
    (await acquireLock(dir, { readOnly: true }))();
  });
});
