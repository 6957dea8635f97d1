/**
 * Unsaved work the window hands to main so a lock does not throw it away: the
 * memory being edited and the unsent chat message. Main keeps them in memory
 * while unlocked and in the vault (encrypted) while locked.
 */
import { z } from 'zod';
import { ProjectId } from './projects';

/** The largest draft text main keeps: a memory file's own size limit (DEFAULT_MEMORY_LIMITS.maxFileBytes). */
export const MAX_MEMORY_DRAFT_CHARS = 1024 * 1024;
/** The largest chat message the window may send. */
export const MAX_CHAT_DRAFT_CHARS = 100_000;

export const MemoryDraft = z.object({
  path: z.string().min(1).max(2048),
  text: z.string().max(MAX_MEMORY_DRAFT_CHARS),
  /** The saved version the edit started from, so restoring it can still detect a conflict. */
  baseVersion: z.number().int().min(0),
  /** The project whose memory the file is in; absent (a draft kept before projects): the first project. */
  project: ProjectId.optional(),
});
export type MemoryDraft = z.infer<typeof MemoryDraft>;

export const ChatDraft = z.object({
  /** The conversation the message was typed in, when there was one. */
  conversationId: z.string().regex(/^[0-9a-f]{16,32}$/).optional(),
  text: z.string().min(1).max(MAX_CHAT_DRAFT_CHARS),
});
export type ChatDraft = z.infer<typeof ChatDraft>;

export const Drafts = z.object({ memory: MemoryDraft.optional(), chat: ChatDraft.optional() });
export type Drafts = z.infer<typeof Drafts>;
export type DraftKind = keyof Drafts;

/** One draft set (a value) or discarded (null). */
export const DraftPut = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), draft: MemoryDraft.nullable() }),
  z.object({ kind: z.literal('chat'), draft: ChatDraft.nullable() }),
]);
export type DraftPut = z.infer<typeof DraftPut>;
