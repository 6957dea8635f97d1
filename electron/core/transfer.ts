/**
 * Copies out of the vault, shared by the desktop app and the CLI: an encrypted
 * backup (the vault's files as one consistent generation) and a plaintext export.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { nodeFs, type VaultFs } from './vault/fsio';
import { VaultError, type VaultApi } from './vault/types';
import { m } from './i18n/message';

/** True if `dir` does not exist or is an empty directory: we never write into a folder that holds something. */
export async function isFreshTarget(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** `p` with its longest existing prefix resolved through links, so two spellings of one folder compare equal. */
async function realish(p: string): Promise<string> {
  const abs = path.resolve(p);
  const rest: string[] = [];
  for (let cur = abs; ; cur = path.dirname(cur)) {
    try {
      return path.join(await fs.realpath(cur), ...rest.reverse());
    } catch {
      if (path.dirname(cur) === cur) return abs;
      rest.push(path.basename(cur));
    }
  }
}

/**
 * True if `target` is the vault folder or inside it. A copy of the vault made
 * there would copy itself (without end) and would then sit among the vault's
 * own files.
 */
export async function isInsideVault(vaultDir: string, target: string): Promise<boolean> {
  const [v, t] = await Promise.all([realish(vaultDir), realish(target)]);
  const rel = path.relative(v, t);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
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

async function copyTree(fsx: VaultFs, from: string, to: string): Promise<void> {
  await fsx.mkdir(to);
  for (const name of await fsx.readdir(from)) {
    if (!belongsInBackup(name)) continue;
    const src = path.join(from, name);
    const dest = path.join(to, name);
    if ((await fsx.stat(src)).isDirectory) await copyTree(fsx, src, dest);
    else {
      const data = await fsx.readFile(src);
      const fh = await fsx.open(dest, 'new');
      try {
        if ((await fh.write(data, 0)) !== data.length) throw new Error('short write');
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
  }
  // Each folder's entries durable before the copy is renamed into place.
  await fsx.syncDir(to);
}

async function removeTree(fsx: VaultFs, dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fsx.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    if ((await fsx.stat(p)).isDirectory) await removeTree(fsx, p);
    else await fsx.unlink(p);
  }
  await fsx.rmdir(dir);
}

/**
 * Copies the vault's encrypted files to `target` (missing or an empty folder)
 * while holding its mutation queue, so the copy is one generation. The copy is
 * written and synced in a temp folder beside `target`, passed to `check` (which
 * throws to abandon it), and only then renamed into place: a crash leaves no
 * backup or a whole one, never a half backup that looks whole. `fsx` is the
 * vault's file layer (tests pass a simulated disk).
 */
export async function copyVault(vault: VaultApi, target: string, check?: (copy: string) => Promise<void>, fsx: VaultFs = nodeFs): Promise<void> {
  if (await isInsideVault(vault.dir, target)) throw new VaultError('INVALID', m('errors:transfer.backupInsideVault'));
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await vault.exclusive(() => copyTree(fsx, vault.dir, tmp), { confirmed: true });
    await fsx.syncDir(path.dirname(tmp));
    await check?.(tmp);
    await fsx.rmdir(target);
    await fsx.rename(tmp, target);
    await fsx.syncDir(path.dirname(target));
  } finally {
    await removeTree(fsx, tmp);
  }
}
