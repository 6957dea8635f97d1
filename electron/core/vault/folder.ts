/**
 * What a vault's folder holds before its header is read: a vault, a damaged one
 * (its data without vault.json), what an interrupted creation left, nothing
 * (or only what a lock or a sync engine leaves), or something else; and the
 * mark a creation keeps until its vault.json is written.
 */
import path from 'node:path';
import type { VaultFs } from './fsio';
import { HEADER_FILE } from './sync/header-copies';
import { SYNC_MARKERS } from './sync/layout';

/**
 * Files a lock leaves in a folder (lockfile.ts), and the markers sync engines
 * put in a synced folder's root (docs/sync-design.md §1): a folder holding
 * only these is empty, so a vault can be made in the root of a Syncthing or
 * Dropbox folder.
 */
const LEFT_BY_A_LOCK = new Set(['.vault.lock', '.lock', ...SYNC_MARKERS]);

/** Made before a new vault's first file and removed once its vault.json is written: an interrupted creation. */
export const CREATING_FILE = '.mnemo-creating';
/** What a vault creation writes before vault.json. */
const isVaultData = (n: string) => n === 'segments' || n === 'blobs' || n.startsWith('manifest.') || n === 'devices';
/** What a creation killed midway may leave: its files, and a temp file (files.ts writeTemp) it was writing. */
const leftByCreation = (n: string) => (isVaultData(n) && n !== 'devices') || n.startsWith('.tmp-');

export type FolderContents = 'missing' | 'empty' | 'vault' | 'headless' | 'interrupted' | 'other';

/**
 * What `dir` holds: `missing` (no such folder), `empty` (nothing but a lock
 * file), `vault`, `headless` (vault data — a manifest or segments — but no
 * vault.json: a damaged vault, never to be replaced), `interrupted` (what a
 * creation killed before writing vault.json left: no memories, to be cleared
 * by the next creation), or `other`.
 */
export async function folderContents(dir: string, fsx: VaultFs): Promise<FolderContents> {
  let names: string[];
  try {
    names = await fsx.readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    // A file, not a folder: something else lives there.
    if (code === 'ENOTDIR') return 'other';
    throw e;
  }
  if (names.includes(HEADER_FILE)) return 'vault';
  // Only what a creation makes, and its mark: a creation killed before it wrote vault.json, holding no memories.
  if (names.includes(CREATING_FILE) && names.every((n) => n === CREATING_FILE || LEFT_BY_A_LOCK.has(n) || leftByCreation(n))) return 'interrupted';
  if (names.some(isVaultData)) return 'headless';
  return names.every((n) => LEFT_BY_A_LOCK.has(n)) ? 'empty' : 'other';
}

/** True when `dir` holds a vault, whole or damaged (vault data without its vault.json). */
export async function vaultExists(dir: string, fsx: VaultFs): Promise<boolean> {
  const what = await folderContents(dir, fsx).catch(() => 'other' as const);
  return what === 'vault' || what === 'headless';
}

/**
 * Before a new vault's first file: clears what an interrupted creation left,
 * then makes the mark (durably) that says, until vault.json exists, that the
 * folder holds no memories yet.
 */
export async function startCreating(dir: string, fsx: VaultFs): Promise<void> {
  // Its mark stays: the folder still holds no memories.
  if ((await folderContents(dir, fsx)) === 'interrupted') return clearInterrupted(dir, fsx);
  // Empty, so made in place: a temp file left by a crash here would make the folder look not empty.
  const fh = await fsx.open(path.join(dir, CREATING_FILE), 'new');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsx.syncDir(dir);
}

/** Removes the creation mark once vault.json is written (best effort: an open removes a stale one). */
export async function doneCreating(dir: string, fsx: VaultFs): Promise<void> {
  await fsx.unlink(path.join(dir, CREATING_FILE)).catch(() => undefined);
}

/** Removes what an interrupted creation left in `dir` (contents() said `interrupted`). */
async function clearInterrupted(dir: string, fsx: VaultFs): Promise<void> {
  for (const n of await fsx.readdir(dir)) {
    if (!leftByCreation(n)) continue;
    const p = path.join(dir, n);
    if (n === 'segments' || n === 'blobs') {
      for (const f of await fsx.readdir(p)) await fsx.unlink(path.join(p, f));
      await fsx.rmdir(p);
    } else await fsx.unlink(p);
  }
  await fsx.syncDir(dir);
}
