import path from 'node:path';
import { Vault } from '../core/vault/vault';
import { VaultError } from '../core/vault/types';
import type { ImportItem } from '../core/vault/ops';
import { DEFAULT_MEMORY_LIMITS } from '../core/memory/limits';
import { formatFileSize } from '../core/memory/format';
import { defaultStateDir } from '../core/app-paths';
import { copyVault, exportPlaintext, isFreshTarget, isInsideVault } from '../core/transfer';
import { validateMemoryPath } from '../core/memory/paths';
import { Exit, type CliCommandContext } from './context';
import { ImportChanged, importRoot, listFiles, readListedFile, type ListedFile } from './import-files';
import type { Flags, RunExtras } from './commands';
import { projectScope, projectVault } from './projects';
import { sayCli, tc } from './i18n';

/** `mnemo export DIR --plaintext`: every memory as a plain file under DIR. */
export async function exportCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const target = path.resolve(ctx.argv[0]!);
  if (!(await isFreshTarget(target))) {
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.exportNotEmpty', { dir: target })}\n`);
    return Exit.FAILED;
  }
  const count = await exportPlaintext(await projectVault(ctx, flags), target);
  ctx.stderr.write(`${tc('cli:transfer.exported', { count, dir: target })}\n`);
  return Exit.OK;
}

/**
 * `mnemo import DIR [--overwrite]`: adds the files under DIR as memories, as
 * one change: every file is checked first (path rules, UTF-8, the memory
 * tool's size limits, existing memories) and then all are written together or
 * none, even if the process is killed. Files identical to the memory already
 * there are skipped, so running it again after an interruption succeeds.
 */
export async function importCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const source = path.resolve(ctx.argv[0]!);
  // The files go into the selected project's /memories; the batch below is written in the vault's own paths.
  const scope = await projectScope(ctx, flags);
  const memory = (await projectVault(ctx, flags)).memory;
  let files: ListedFile[];
  let top: string;
  try {
    top = await importRoot(source);
    files = await listFiles(top);
  } catch (err) {
    ctx.stderr.write(`mnemo: ${err instanceof ImportChanged ? tc('cli:transfer.importChanged', { reason: err.message, dir: source }) : tc('cli:transfer.cannotReadFolder', { dir: source })}\n`);
    return Exit.FAILED;
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const limits = DEFAULT_MEMORY_LIMITS;
  const planned: ImportItem[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const rel = file.rel;
    let memoryPath: string;
    try {
      memoryPath = validateMemoryPath(`/memories/${rel}`);
      scope.toVault(memoryPath);
    } catch (err) {
      problems.push(`${rel}: ${(err as Error).message}`);
      continue;
    }
    // Opened without following a link, checked on the descriptor, and never read past the limit.
    const read = await readListedFile(file, top, limits.maxFileBytes);
    if ('tooBig' in read) {
      problems.push(`${rel}: ${formatFileSize(read.tooBig)}, over the ${formatFileSize(limits.maxFileBytes)} limit for one memory file`);
      continue;
    }
    if ('changed' in read) {
      problems.push(`${rel}: not imported, because ${read.changed}`);
      continue;
    }
    let text: string;
    try {
      text = decoder.decode(read.bytes);
    } catch {
      problems.push(`${rel}: not UTF-8 text`);
      continue;
    }
    const existing = memory.stat(memoryPath);
    if (existing?.kind === 'dir') {
      problems.push(`${rel}: ${memoryPath} is a folder in the vault`);
      continue;
    }
    planned.push({ path: memoryPath, text });
  }
  if (problems.length) {
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.nothingImported')}\n${problems.map((p) => `  ${p}\n`).join('')}`);
    return Exit.FAILED;
  }
  if (!(ctx.vault instanceof Vault)) throw new Error('import needs a vault opened from disk');
  try {
    const inVault = planned.map((item) => ({ ...item, path: scope.toVault(item.path) }));
    const written = await ctx.vault.importFiles(inVault, { overwrite: flags.overwrite === true, source: 'cli', maxFileBytes: limits.maxFileBytes, maxTotalBytes: limits.maxVaultBytes });
    const skipped = planned.length - written;
    ctx.stderr.write(`${skipped ? tc('cli:transfer.importedSkipped', { count: written, skipped }) : tc('cli:transfer.imported', { count: written })}\n`);
    return Exit.OK;
  } catch (err) {
    if (!(err instanceof VaultError) || !['EXISTS', 'LIMIT', 'NOT_A_FILE', 'NOT_A_DIRECTORY', 'INVALID'].includes(err.code)) throw scope.error(err);
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.nothingImportedBecause', { reason: sayCli(scope.error(err) as VaultError) })}\n`);
    return Exit.FAILED;
  }
}

/**
 * `mnemo backup DIR`: an encrypted copy of the vault, taken while holding the
 * mutation queue so it is one consistent generation, written into a temp
 * folder, opened read-only and verified there, and only then renamed into
 * place — so DIR never holds a half or unverified backup.
 */
export async function backupCommand(ctx: CliCommandContext, _flags: Flags, extras: RunExtras): Promise<number> {
  const target = path.resolve(ctx.argv[0]!);
  if (await isInsideVault(ctx.vault.dir, target)) {
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.backupInsideVault')}\n`);
    return Exit.FAILED;
  }
  if (!(await isFreshTarget(target))) {
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.backupNotEmpty', { dir: target })}\n`);
    return Exit.FAILED;
  }
  let problems: string[] = [];
  await copyVault(ctx.vault, target, async (tmp) => {
    const copy = await Vault.open(tmp, { stateDir: defaultStateDir(ctx.env), readOnly: true });
    try {
      await copy.unlock(extras.currentPassphrase);
      problems = (await copy.verify()).problems;
    } finally {
      await copy.close();
    }
    if (problems.length) throw new Error('the backup copy did not verify');
  }).catch((err: unknown) => {
    if (!problems.length) throw err;
  });
  if (problems.length) {
    ctx.stderr.write(`mnemo: ${tc('cli:transfer.backupNotVerified', { dir: target })}\n${problems.map((p) => `  ${p}\n`).join('')}`);
    return Exit.FAILED;
  }
  ctx.stderr.write(`${tc('cli:transfer.backedUp', { dir: target })}\n`);
  return Exit.OK;
}
