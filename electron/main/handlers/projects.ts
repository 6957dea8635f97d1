/** Handlers for projects, moving memories between them, models, the context meter and conversation export. */
import fs from 'node:fs/promises';
import { requireLiveConversation } from '../../core/projects/live';
import { conversationMarkdown, exportFileName } from '../../core/chat/export-markdown';
import { contextUse, listModels } from '../../core/chat/models';
import { transferMemory } from '../../core/projects/move';
import { Projects } from '../../core/projects/store';
import { VaultError } from '../../core/vault/types';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { m } from '../../core/i18n/message';

export function projectHandlers(
  s: AppSession,
): HandlersFor<'projectsList' | 'projectsCreate' | 'projectsRename' | 'projectsDelete' | 'projectsRestore' | 'memoryTransfer' | 'modelsList' | 'chatContext' | 'chatExport'> {
  const projects = () => new Projects(s.unlocked());
  /** A conversation, stored or temporary. */
  const conversation = async (id: string) => (s.temporary.has(id) ? s.temporary.require(id) : requireLiveConversation(s.unlocked(), id));
  return {
    projectsList: async () => ({ projects: await projects().list(), deleted: await projects().listDeleted() }),
    projectsCreate: async ({ name }) => projects().create(name),
    projectsRename: async ({ id, name }) => projects().rename(id, name),
    projectsDelete: async ({ id }) => {
      // A reply in flight holds its project's memory and would go on writing there after the project is gone.
      if (s.turns.size > 0) throw new VaultError('INVALID', m('errors:project.busy'));
      await projects().delete(id);
      // A temporary chat of a deleted project has nowhere to read memory from: it ends with its project.
      for (const c of s.temporary.list()) if (c.project === id) s.temporary.delete(c.id);
      return null;
    },
    projectsRestore: async ({ id }) => projects().restore(id),
    memoryTransfer: async ({ fromProject, path, toProject, toPath, mode }) =>
      transferMemory(s.unlocked(), { fromProject, path, toProject, mode, source: 'user', limits: s.limits, ...(toPath !== undefined ? { toPath } : {}) }),
    modelsList: async (opts) => listModels(s.unlocked(), { refresh: opts?.refresh === true, env: s.ctx.env }),
    chatContext: async ({ id }) => contextUse(s.unlocked(), await conversation(id), { env: s.ctx.env, ...(s.temporary.has(id) ? { attachments: s.temporary } : {}) }),
    chatExport: async ({ id }) => {
      const c = await conversation(id);
      const markdown = conversationMarkdown(c);
      if (!s.ctx.pickSaveFile) return { saved: false };
      const target = await s.ctx.pickSaveFile(exportFileName(c.title));
      if (!target) return { saved: false };
      try {
        await fs.writeFile(target, markdown, { encoding: 'utf8', mode: 0o600 });
      } catch {
        throw new VaultError('IO', m('errors:conversation.exportFailed'));
      }
      return { saved: true };
    },
  };
}
