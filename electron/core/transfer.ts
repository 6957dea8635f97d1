/**
 * Copies out of the vault, shared by the desktop app and the CLI: an encrypted
 * backup (the vault's files as one consistent generation) and a plaintext export.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { VaultApi } from './vault/types';

/** True if `dir` does not exist or is an empty directory: we never write into a folder that holds something. */
export async function isFreshTarget(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Writes a new file (never over an existing one) and syncs it. */
export async function writeNewFileDurably(file: string, data: string | Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Every memory as a plain file under `target` (which must be new or empty); returns how many files. */
export async function exportPlaintext(vault: VaultApi, target: string): Promise<number> {
  let count = 0;
  for (const entry of vault.memory.list('/memories', Infinity)) {
    const dest = path.join(target, ...entry.path.slice('/memories/'.length).split('/'));
    if (entry.kind === 'dir') {
      await fs.mkdir(dest, { recursive: true, mode: 0o700 });
      continue;
    }
    await writeNewFileDurably(dest, await vault.memory.readFile(entry.path));
    count++;
  }
  return count;
}

/** Process-lock and temporary files are this process's own, not part of a backup. */
function belongsInBackup(name: string): boolean {
  return !name.endsWith('.lock') && !name.startsWith('.tmp') && !name.endsWith('.tmp');
}

async function copyTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true, mode: 0o700 });
  for (const e of await fs.readdir(from, { withFileTypes: true })) {
    if (!belongsInBackup(e.name)) continue;
    const src = path.join(from, e.name);
    const dest = path.join(to, e.name);
    if (e.isDirectory()) await copyTree(src, dest);
    else if (e.isFile()) await writeNewFileDurably(dest, await fs.readFile(src));
  }
}

/**
 * Copies the vault's encrypted files to `target` (missing or an empty folder)
 * while holding its mutation queue, so the copy is one generation. The copy is
 * written and synced in a temp folder beside `target`, passed to `check` (which
 * throws to abandon it), and only then renamed into place: a crash leaves no
 * backup or a whole one, never a half backup that looks whole.
 */
export async function copyVault(vault: VaultApi, target: string, check?: (copy: string) => Promise<void>): Promise<void> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await vault.exclusive(() => copyTree(vault.dir, tmp));
    await syncTree(tmp);
    await check?.(tmp);
    await fs.rmdir(target).catch(() => undefined);
    await fs.rename(tmp, target);
    await syncDir(path.dirname(target));
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Syncs every folder below `dir` (files were synced as they were written), so their entries are durable before the rename. */
async function syncTree(dir: string): Promise<void> {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) if (e.isDirectory()) await syncTree(path.join(dir, e.name));
  await syncDir(dir);
}
