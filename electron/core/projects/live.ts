/**
 * A deleted project's conversations stay stored, out of sight until the
 * project is restored: not listed, not found by search, and not opened,
 * continued or exported by id either.
 */
import { Conversations, type StoredConversation } from '../chat/conversations';
import { VaultError, type VaultApi } from '../vault/types';
import { FIRST_PROJECT_ID, Projects } from './store';
import { m } from '../i18n/message';

/** Only the items of live (not deleted) projects; an item without a project is in the first. */
export async function inLiveProjects<T extends { project?: string | undefined }>(vault: VaultApi, list: T[]): Promise<T[]> {
  const live = new Set((await new Projects(vault).list()).map((p) => p.id));
  return list.filter((c) => live.has(c.project ?? FIRST_PROJECT_ID));
}

/** A stored conversation by id, refused as not found when its project is deleted. */
export async function requireLiveConversation(vault: VaultApi, id: string): Promise<StoredConversation> {
  const c = await new Conversations(vault).require(id);
  if ((await inLiveProjects(vault, [c])).length === 0) {
    throw new VaultError('NOT_FOUND', m('errors:conversation.inDeletedProject'));
  }
  return c;
}
