/**
 * Durable file primitives. A write is acknowledged only after its bytes and
 * its directory entry are on disk; the OS's error text never leaves here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes, toHex } from './crypto';
import { VaultError } from './types';

/** Runs `fn`, turning any OS error into a generic IO VaultError (no host paths, no OS text). */
export async function io<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof VaultError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const hint = code === 'ENOSPC' ? ' The disk is full.' : code === 'EACCES' || code === 'EPERM' ? ' Permission denied.' : '';
    throw new VaultError('IO', `Could not ${what}.${hint}`);
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Atomic replace: temp file (O_EXCL), fsync, rename over `file`, fsync the directory. */
export async function writeFileDurable(file: string, data: Uint8Array): Promise<void> {
  const tmp = path.join(path.dirname(file), `.tmp-${toHex(randomBytes(8))}`);
  const fh = await fs.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(path.dirname(file));
}

/** Reads a whole file, or undefined if it does not exist. */
export async function readIfExists(file: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await fs.readFile(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Removes temp files a crash may have left behind (they never hold acknowledged data). */
export async function removeTemps(dir: string): Promise<void> {
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith('.tmp-')) await fs.rm(path.join(dir, name), { force: true });
  }
}
