/**
 * Handlers for memory versions with their authors and for the trash (deleted
 * memories), in one project's memory: every path checked by the memory tool's
 * own rules and mapped to the project's root, so no other project's memory is
 * listed, restored or emptied from here.
 */
import { validateMemoryPath } from '../../core/memory/paths';
import type { MemoryScope } from '../../core/projects/scope';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export type TrashCalls = 'memoryVersions' | 'memoryTrash' | 'memoryTrashRestore' | 'memoryTrashEmpty';

export function trashHandlers(s: AppSession, scopeOf: (project: string | undefined) => Promise<MemoryScope>): HandlersFor<TrashCalls> {
  /** This project's deleted memories, with their paths as the vault and as the project names them. */
  const trashIn = (scope: MemoryScope) =>
    s.unlocked().trash().flatMap((t) => {
      const path = scope.fromVault(t.path);
      return path ? [{ vaultPath: t.path, entry: { ...t, path } }] : [];
    });
  const mapped = async <T>(scope: MemoryScope, run: () => Promise<T> | T): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw scope.error(e);
    }
  };
  return {
    memoryVersions: async ({ path, project }) => {
      const scope = await scopeOf(project);
      return mapped(scope, () => s.unlocked().versions(scope.toVault(validateMemoryPath(path))));
    },
    memoryTrash: async (opts) => trashIn(await scopeOf(opts?.project)).map((t) => t.entry),
    memoryTrashRestore: async ({ path, version, project }) => {
      const scope = await scopeOf(project);
      const vault = s.unlocked();
      const meta = await mapped(scope, () => vault.restoreDeleted(scope.toVault(validateMemoryPath(path)), version, s.limits));
      const by = vault.writer(meta.path);
      return scope.entry(by ? { ...meta, by } : meta);
    },
    memoryTrashEmpty: async ({ paths, project }) => {
      const scope = await scopeOf(project);
      const mine = trashIn(scope);
      const wanted = paths ? new Set(paths.map((p) => validateMemoryPath(p))) : undefined;
      const chosen = mine.filter((t) => !wanted || wanted.has(t.entry.path)).map((t) => t.vaultPath);
      return { removed: chosen.length ? await s.unlocked().emptyTrash(chosen) : 0 };
    },
  };
}
