/**
 * Moving or copying a memory file from one project's memory to another's.
 * Both projects' paths are `/memories/…` paths; the change is made inside the
 * vault's mutation queue, so nothing can write either path in between.
 */
import { resolveLimits, type MemoryLimits } from '../memory/limits';
import { sizeRefusal } from '../vault/ops';
import { m } from '../i18n/message';
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
  if (from.root === to.root && path === toPath) throw new VaultError('INVALID', m('errors:move.samePlace'));
  // The other project's root may not exist yet: a file moved there would turn its whole /memories into a file.
  if (toPath === MEMORY_ROOT) throw new VaultError('INVALID', m('errors:move.toRoot', { root: MEMORY_ROOT }), toPath);
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
    if (!meta) throw new VaultError('NOT_FOUND', m('errors:move.notFound', { path }), path);
    if (meta.kind !== 'file') throw new VaultError('NOT_A_FILE', m('errors:move.isFolder', { path }), path);
    if (ops.stat(dst)) throw new VaultError('EXISTS', m('errors:move.exists', { path: toPath }), toPath);
    if (t.mode === 'move') {
      // A file moved onto a deleted memory's path takes that path's history with it, and the deleted one's kept
      // versions would be dropped without ever passing through "Empty trash" (a copy continues them, as a write does).
      if (vault.history(dst).length) {
        throw new VaultError('EXISTS', m('errors:move.inTrash', { path: toPath }), toPath);
      }
      await told(ops.rename(src, dst, t.source));
    } else {
      // A copy adds to the vault's total, which the memory tool's limit caps for every project together.
      const problem = sizeRefusal(toPath, meta.size, 0, ops.totalSize(), resolveLimits(t.limits), true);
      if (problem) throw new VaultError('LIMIT', problem, toPath);
      await told(ops.writeFile(dst, await told(ops.readFile(src)), { mode: 'create', source: t.source }));
    }
    const moved = ops.stat(dst);
    if (moved?.kind !== 'file') throw new VaultError('IO', m('errors:move.notPlaced'));
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
  const reword = (text: string) => [to, from].reduce((t, scope) => (scope.isBase ? t : t.split(scope.root).join(MEMORY_ROOT)), text);
  const subject = e.subject === undefined ? undefined : (to.fromVault(e.subject) ?? from.fromVault(e.subject) ?? MEMORY_ROOT);
  return e.with({ subject, reword });
}
