/**
 * Handlers for the memory browser and editor: every path checked by the memory
 * tool's own rules, in one project's memory (`project`; default the first).
 */
import { validateMemoryPath, validateMovedPaths } from '../../core/memory/paths';
import { FIRST_PROJECT_ID, Projects } from '../../core/projects/store';
import type { EntryMeta, FileMeta, Provenance, VaultApi } from '../../core/vault/types';
import { searchMemories } from '../../core/search/memory-search';
import { trashHandlers, type TrashCalls } from './trash';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

const entry = (e: EntryMeta) => e;
const withWriter = (e: FileMeta, by: Provenance | undefined) => (by ? { ...e, by } : e);
const fileEntry = (e: FileMeta) => e;

export function memoryHandlers(s: AppSession): HandlersFor<
  'memoryList' | 'memoryRead' | 'memoryWrite' | 'memoryMkdir' | 'memoryRename' | 'memoryDelete' | 'memoryHistory' | 'memoryReadVersion' | 'memoryRestore' | 'memorySearch' | TrashCalls
> {
  const inProject = (project: string | undefined): Promise<VaultApi> => new Projects(s.unlocked()).memoryVault(project ?? FIRST_PROJECT_ID);
  return {
    memoryList: async (opts) => {
      const projects = new Projects(s.unlocked());
      const scope = await projects.memoryScope(opts?.project ?? FIRST_PROJECT_ID);
      const vault = await projects.memoryVault(opts?.project ?? FIRST_PROJECT_ID);
      // Each file carries its last writer, so the tree can badge what Claude changed.
      return vault.memory.list('/memories', Infinity).map((e) => (e.kind === 'file' ? withWriter(e, s.unlocked().writer(scope.toVault(e.path))) : entry(e)));
    },
    ...trashHandlers(s, (project) => new Projects(s.unlocked()).memoryScope(project ?? FIRST_PROJECT_ID)),
    memoryRead: async ({ path, project }) => {
      const vault = await inProject(project);
      const p = validateMemoryPath(path);
      const text = await vault.memory.readFile(p);
      const meta = vault.memory.stat(p);
      return { text, version: meta?.kind === 'file' ? meta.version : 0 };
    },
    memoryWrite: async ({ path, text, mode, expectedVersion, project }) =>
      fileEntry(await (await inProject(project)).memory.writeFile(validateMemoryPath(path), text, { mode, source: 'user', limits: s.limits, ...(expectedVersion !== undefined ? { expectedVersion } : {}) })),
    memoryMkdir: async ({ path, project }) => {
      await (await inProject(project)).memory.mkdir(validateMemoryPath(path), 'user');
      return null;
    },
    memoryRename: async ({ from, to, project }) => {
      const [a, b] = [validateMemoryPath(from), validateMemoryPath(to)];
      // Checked and moved inside one queue turn, so no write can slip a too-deep path in between.
      await (await inProject(project)).exclusive(async (ops) => {
        if (ops.stat(a)?.kind === 'dir') validateMovedPaths(a, b, ops.list(a, Infinity).map((e) => e.path));
        await ops.rename(a, b, 'user');
      });
      return null;
    },
    memoryDelete: async ({ path, project }) => {
      await (await inProject(project)).memory.remove(validateMemoryPath(path), 'user');
      return null;
    },
    memoryHistory: async ({ path, project }) => (await inProject(project)).history(validateMemoryPath(path)),
    memoryReadVersion: async ({ path, version, project }) => ({ text: await (await inProject(project)).readVersion(validateMemoryPath(path), version) }),
    memoryRestore: async ({ path, version, project }) => fileEntry(await (await inProject(project)).restore(validateMemoryPath(path), version, 'user', s.limits)),
    memorySearch: async ({ query, project }) => searchMemories((await inProject(project)).memory, query),
  };
}
