/**
 * Copies out of the vault, shared by the desktop app and the CLI: an encrypted
 * backup (the vault's files as one consistent generation) and a plaintext export.
 */
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

/** Copies the vault's encrypted files to `target` while holding its mutation queue, so the copy is one generation. */
export async function copyVault(vault: VaultApi, target: string): Promise<void> {
  await vault.exclusive(() => copyTree(vault.dir, target));
}
