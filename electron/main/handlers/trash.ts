/** Handlers for memory versions with their authors and for the trash (deleted memories): every path checked by the memory tool's own rules. */
import { validateMemoryPath } from '../../core/memory/paths';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export type TrashCalls = 'memoryVersions' | 'memoryTrash' | 'memoryTrashRestore' | 'memoryTrashEmpty';

export function trashHandlers(s: AppSession): HandlersFor<TrashCalls> {
  return {
    memoryVersions: async ({ path }) => s.unlocked().versions(validateMemoryPath(path)),
    memoryTrash: async () => s.unlocked().trash(),
    memoryTrashRestore: async ({ path, version }) => {
      const vault = s.unlocked();
      const meta = await vault.restoreDeleted(validateMemoryPath(path), version);
      const by = vault.writer(meta.path);
      return by ? { ...meta, by } : meta;
    },
    memoryTrashEmpty: async ({ paths }) => ({ removed: await s.unlocked().emptyTrash(paths?.map((p) => validateMemoryPath(p))) }),
  };
}
