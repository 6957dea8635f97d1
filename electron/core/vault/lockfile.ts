/**
 * One process per vault: `<vault>/.lock` holds the owner's pid, created with
 * O_EXCL. A lock whose pid is no longer alive (a crash) is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { VaultError } from './types';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const held = new Set<string>();
let exitHookInstalled = false;

/** Takes the vault's process lock; IN_USE if a live process (this one included) holds it. */
export function acquireLock(dir: string): () => void {
  const file = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, `${process.pid}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      held.add(file);
      installExitHook();
      return () => release(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new VaultError('IO', 'Could not lock the vault for this process.');
    }
    const pid = Number.parseInt(readOrEmpty(file), 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new VaultError('IN_USE', 'The vault is open in another Mnemo window or mnemo command; close it there first.');
    }
    // The owner died without releasing it: take it over.
    fs.rmSync(file, { force: true });
  }
  throw new VaultError('IN_USE', 'The vault is locked by another process; close it there first.');
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function release(file: string): void {
  if (!held.delete(file)) return;
  if (readOrEmpty(file).trim() === String(process.pid)) fs.rmSync(file, { force: true });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const file of [...held]) release(file);
  });
}
