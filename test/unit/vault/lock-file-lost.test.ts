/**
 * `.vault.lock` is never removed by Mnemo, but people and tools remove "lock
 * files": with it removed or replaced (and the `.lock` record with it) while a
 * process holds the vault, a second writer must still be refused — else its
 * acknowledged writes and the first one's are lost with `verify` still 0.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { Vault } from '../../../electron/core/vault/vault';
import { FLOOR, PASS, pinFormat1 } from './helpers';
import { cleanupsAfterEach, madeVault as madeVaultIn } from './lock-children';

const CHILD = path.join(import.meta.dirname, 'lock-child.ts');

const cleanup = cleanupsAfterEach();
const madeVault = () => madeVaultIn('mnemo-locklost-', cleanup);

/** Opens the vault in a child process (lock-child.ts), which holds it until the test ends; its answer ("won" or the error). */
async function openInChild(dir: string, state: string): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, state], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.on('close', () => resolve()));
  cleanup(async () => {
    proc.stdin.end();
    proc.kill('SIGKILL');
    await exited;
  });
  const lines = readline.createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe('ready');
  proc.stdin.write('go\n');
  return String((await lines.next()).value);
}

const removeLocks = async (dir: string) => {
  await fs.rm(path.join(dir, '.vault.lock'));
  await fs.rm(path.join(dir, '.lock'), { force: true });
};

describe('a lock file lost under a live holder', () => {
  it('with .vault.lock and .lock removed, a second process is refused while the first holds the vault', async () => {
    const { dir, state } = await madeVault();
    expect(await openInChild(dir, state)).toBe('won');
    await removeLocks(dir);
    expect(await openInChild(dir, state)).toMatch(/^IN_USE /);
  }, 60_000);

  it('with .vault.lock replaced by another file, a second process is refused', async () => {
    const { root, dir, state } = await madeVault();
    expect(await openInChild(dir, state)).toBe('won');
    await fs.writeFile(path.join(root, 'fresh'), '');
    await fs.rename(path.join(root, 'fresh'), path.join(dir, '.vault.lock'));
    await fs.rm(path.join(dir, '.lock'), { force: true });
    expect(await openInChild(dir, state)).toMatch(/^IN_USE /);
  }, 60_000);

  it('a holder that wrote vault.json anew (a passphrase change) still holds the vault once .vault.lock is gone', async () => {
    // Format 1: about the in-folder .vault.lock (format 2 locks in the state folder)
    pinFormat1();
    const { dir, state } = await madeVault();
    const vault = await Vault.open(dir, { stateDir: state });
    cleanup(() => vault.close());
    await vault.unlock(PASS);
    await vault.changePassphrase(PASS, `${PASS} 2`, FLOOR);
    await removeLocks(dir);
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IN_USE' });
    await expect(acquireLock(dir, { readOnly: true })).rejects.toMatchObject({ code: 'IN_USE' });
    await vault.close();
    // Closed, it holds nothing: the vault opens again.
    (await acquireLock(dir))();
  }, 60_000);

  it('a folder in place of .vault.lock refuses a writer saying what is wrong', async () => {
    const { dir } = await madeVault();
    await fs.rm(path.join(dir, '.vault.lock'));
    await fs.mkdir(path.join(dir, '.vault.lock'));
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/\.vault\.lock is not a regular file/) });
  });
});
