/**
 * Durable file primitives over a VaultFs. A write is acknowledged only after
 * its bytes and its directory entry are on disk; the OS's error text never
 * leaves here.
 */
import path from 'node:path';
import { toHex, uniqueBytes } from './crypto';
import type { VaultFs } from './fsio';
import { VaultError } from './types';
import { m, type ErrorKey, type LocalMessage } from '../i18n/message';

/** What a vault file operation was doing, said inside "Could not …" (a verb phrase in each language). */
export type IoAction = Extract<ErrorKey, `errors:io.action.${string}`>;

/** A full disk or quota, said as what it is and what to do (every change is atomic: the failed one was not saved). */
export const diskFull = (what: LocalMessage): VaultError => new VaultError('DISK_FULL', m('errors:io.diskFull', { what }));

/** Runs `fn`, turning any OS error into a generic IO VaultError (no host paths, no OS text). */
export async function io<T>(action: IoAction, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof VaultError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const what = m(action);
    if (code === 'ENOSPC' || code === 'EDQUOT') throw diskFull(what);
    throw new VaultError('IO', code === 'EACCES' || code === 'EPERM' ? m('errors:io.failedDenied', { what }) : m('errors:io.failed', { what }));
  }
}

/** Writes `data` to a new temp file beside `file` and syncs it; returns the temp file's path. */
export async function writeTemp(fsx: VaultFs, file: string, data: Uint8Array): Promise<string> {
  const tmp = path.join(path.dirname(file), `.tmp-${toHex(uniqueBytes(8))}`);
  const fh = await fsx.open(tmp, 'new');
  try {
    if ((await fh.write(data, 0)) !== data.length) throw new Error('short write');
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** Atomic replace: temp file (O_EXCL), fsync, rename over `file`, fsync the directory. */
export async function writeFileDurable(fsx: VaultFs, file: string, data: Uint8Array): Promise<void> {
  const tmp = await writeTemp(fsx, file, data);
  try {
    await fsx.rename(tmp, file);
  } catch (e) {
    await fsx.unlink(tmp);
    throw e;
  }
  await fsx.syncDir(path.dirname(file));
}

/** Reads a whole file, or undefined if it does not exist. */
export async function readIfExists(fsx: VaultFs, file: string): Promise<Uint8Array | undefined> {
  try {
    return await fsx.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A lock record being written (lockrecord.ts `writeRecord`), left behind if its writer was killed: it is written only under the lock. */
const RECORD_TEMP = /^\.lock\.\d+\.tmp$/;

/**
 * Removes temp files a crash may have left behind (they never hold
 * acknowledged data). Only with the vault's lock held: nobody else writes one then.
 */
export async function removeTemps(fsx: VaultFs, dir: string): Promise<void> {
  for (const name of await fsx.readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith('.tmp-') || (RECORD_TEMP.test(name) && name !== `.lock.${process.pid}.tmp`)) await fsx.unlink(path.join(dir, name));
  }
}
