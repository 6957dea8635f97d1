/**
 * Moving or copying a memory file from one project's memory to another's.
 * Both projects' paths are `/memories/…` paths; the change is made inside the
 * vault's mutation queue, so nothing can write either path in between.
 */
import { resolveLimits, sizeProblem, type MemoryLimits } from '../memory/limits';
import { MEMORY_ROOT, validateMemoryPath } from '../memory/paths';
import { VaultError, type ChangeSource, type FileMeta, type VaultApi } from '../vault/types';
import type { MemoryScope } from './scope';
import { Projects } from './store';

export interface MemoryTransfer {
  fromProject: string;
  path: string;
  toProject: string;
  /** Where it goes in the other project (default: the same path). */
  toPath?: string;
  mode: 'move' | 'copy';
  source: ChangeSource;
  /** The memory tool's limits (defaults as there). */
  limits?: Partial<MemoryLimits>;
}

/**
 * Moves (keeping the file's history with it) or copies one memory file to
 * another project. EXISTS if the destination is taken or, for a move, holds a
 * deleted memory in the trash; nothing changes then.
 */
export async function transferMemory(vault: VaultApi, t: MemoryTransfer): Promise<FileMeta> {
  const projects = new Projects(vault);
  const from = await projects.memoryScope(t.fromProject);
  const to = await projects.memoryScope(t.toProject);
  const path = validateMemoryPath(t.path);
  const toPath = validateMemoryPath(t.toPath ?? t.path);
  if (from.root === to.root && path === toPath) throw new VaultError('INVALID', 'The memory is already there; pick another project or path.');
  // The other project's root may not exist yet: a file moved there would turn its whole /memories into a file.
  if (toPath === MEMORY_ROOT) throw new VaultError('INVALID', `${MEMORY_ROOT} is the other project's memory folder itself; give a file path inside it, such as ${MEMORY_ROOT}/notes.md.`, toPath);
  const src = from.toVault(path);
  const dst = to.toVault(toPath);
  // The vault's own errors name its paths; the checks below already speak in the projects' terms.
  const told = <T>(run: Promise<T>): Promise<T> => run.catch((e: unknown) => Promise.reject(inProjectTerms(e, from, to)));
  return vault.exclusive(async (ops) => {
    // Checked again in the queue, where the project list cannot change: a deletion that committed while this move
    // waited would otherwise receive (or give) a memory out of sight.
    await projects.require(t.fromProject);
    await projects.require(t.toProject);
    const meta = ops.stat(src);
    if (!meta) throw new VaultError('NOT_FOUND', `${path} does not exist in that project.`, path);
    if (meta.kind !== 'file') throw new VaultError('NOT_A_FILE', `${path} is a folder; move or copy one file at a time.`, path);
    if (ops.stat(dst)) throw new VaultError('EXISTS', `${toPath} already exists in the other project; rename one of them first.`, toPath);
    if (t.mode === 'move') {
      // A file moved onto a deleted memory's path takes that path's history with it, and the deleted one's kept
      // versions would be dropped without ever passing through "Empty trash" (a copy continues them, as a write does).
      if (vault.history(dst).length) {
        throw new VaultError('EXISTS', `A deleted ${toPath} is in the other project's trash; restore or empty it there first, or move this one to another path.`, toPath);
      }
      await told(ops.rename(src, dst, t.source));
    } else {
      // A copy adds to the vault's total, which the memory tool's limit caps for every project together.
      const problem = sizeProblem(toPath, meta.size, 0, ops.totalSize(), resolveLimits(t.limits));
      if (problem) throw new VaultError('LIMIT', problem.replace('No change was made: ', 'The memory was not copied: '), toPath);
      await told(ops.writeFile(dst, await told(ops.readFile(src)), { mode: 'create', source: t.source }));
    }
    const moved = ops.stat(dst);
    if (moved?.kind !== 'file') throw new VaultError('IO', 'The memory could not be placed in the other project; try again.');
    return { ...moved, path: toPath };
  });
}

/**
 * A vault error raised on the unscoped paths of a move, told in the two
 * projects' own terms (their `/memories…` paths), so no internal folder or
 * project id reaches the window or the command line.
 */
function inProjectTerms(e: unknown, from: MemoryScope, to: MemoryScope): unknown {
  if (!(e instanceof VaultError)) return e;
  let message = e.message;
  for (const scope of [to, from]) if (!scope.isBase) message = message.split(scope.root).join(MEMORY_ROOT);
  const subject = e.subject === undefined ? undefined : (to.fromVault(e.subject) ?? from.fromVault(e.subject) ?? MEMORY_ROOT);
  return new VaultError(e.code, message, subject);
}
