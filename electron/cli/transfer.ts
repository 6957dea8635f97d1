import fs from 'node:fs/promises';
import path from 'node:path';
import { Vault } from '../core/vault/vault';
import { defaultStateDir } from '../core/app-paths';
import { copyVault, exportPlaintext, isFreshTarget } from '../core/transfer';
import { validateMemoryPath } from '../core/memory/paths';
import { Exit, type CliCommandContext } from './context';
import type { Flags, RunExtras } from './commands';

/** `mnemo export DIR --plaintext`: every memory as a plain file under DIR. */
export async function exportCommand(ctx: CliCommandContext): Promise<number> {
  const target = path.resolve(ctx.argv[0]!);
  if (!(await isFreshTarget(target))) {
    ctx.stderr.write(`mnemo: ${target} is not empty; export writes only into a new or empty folder.\n`);
    return Exit.FAILED;
  }
  const count = await exportPlaintext(ctx.vault, target);
  ctx.stderr.write(`Exported ${count} memories to ${target}. These files are NOT encrypted: delete them when you are done.\n`);
  return Exit.OK;
}

/** Files below `root` as [relative posix path, absolute path]; symlinks and special files are skipped, not followed. */
async function walk(root: string, rel = ''): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const childRel = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(root, childRel)));
    else if (e.isFile()) out.push([childRel, path.join(root, childRel)]);
  }
  return out;
}

/**
 * `mnemo import DIR [--overwrite]`: adds the files under DIR as memories. Every
 * file is checked first (path rules, UTF-8, existing memories) so a bad file
 * changes nothing at all.
 */
export async function importCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const source = path.resolve(ctx.argv[0]!);
  let files: Array<[string, string]>;
  try {
    files = await walk(source);
  } catch {
    ctx.stderr.write(`mnemo: cannot read the folder ${source}.\n`);
    return Exit.FAILED;
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const planned: Array<{ memoryPath: string; text: string }> = [];
  const problems: string[] = [];
  for (const [rel, abs] of files) {
    let memoryPath: string;
    try {
      memoryPath = validateMemoryPath(`/memories/${rel}`);
    } catch (err) {
      problems.push(`${rel}: ${(err as Error).message}`);
      continue;
    }
    let text: string;
    try {
      text = decoder.decode(await fs.readFile(abs));
    } catch {
      problems.push(`${rel}: not UTF-8 text`);
      continue;
    }
    const existing = ctx.vault.memory.stat(memoryPath);
    if (existing && (existing.kind === 'dir' || !flags.overwrite)) {
      problems.push(`${rel}: ${memoryPath} already exists${existing.kind === 'file' ? ' (use --overwrite to replace it)' : ''}`);
      continue;
    }
    planned.push({ memoryPath, text });
  }
  if (problems.length) {
    ctx.stderr.write(`mnemo: nothing was imported:\n${problems.map((p) => `  ${p}\n`).join('')}`);
    return Exit.FAILED;
  }
  await ctx.vault.exclusive(async (ops) => {
    for (const { memoryPath, text } of planned) {
      await ops.writeFile(memoryPath, text, { mode: flags.overwrite ? 'upsert' : 'create', source: 'cli' });
    }
  });
  ctx.stderr.write(`Imported ${planned.length} memories.\n`);
  return Exit.OK;
}

/**
 * `mnemo backup DIR`: an encrypted copy of the vault, taken while holding the
 * mutation queue so it is one consistent generation, then opened and verified.
 */
export async function backupCommand(ctx: CliCommandContext, _flags: Flags, extras: RunExtras): Promise<number> {
  const target = path.resolve(ctx.argv[0]!);
  if (!(await isFreshTarget(target))) {
    ctx.stderr.write(`mnemo: ${target} is not empty; backup writes only into a new or empty folder.\n`);
    return Exit.FAILED;
  }
  await copyVault(ctx.vault, target);
  const copy = await Vault.open(target, { stateDir: defaultStateDir(ctx.env) });
  try {
    await copy.unlock(extras.currentPassphrase);
    const report = await copy.verify();
    // Lock before closing so closing leaves the copy byte-for-byte as taken.
    copy.lock();
    if (!report.ok) {
      ctx.stderr.write(`mnemo: the backup at ${target} did not verify:\n${report.problems.map((p) => `  ${p}\n`).join('')}`);
      return Exit.FAILED;
    }
  } finally {
    await copy.close();
  }
  ctx.stderr.write(`Backed up to ${target} (encrypted; opens with this vault's passphrase or recovery key).\n`);
  return Exit.OK;
}
