/**
 * Unsaved work the window hands to main so a lock does not throw it away: the
 * memory being edited, the unsent chat message, the sent messages being edited and the names typed for other
 * computers (Settings → Other computers). Main keeps them in memory
 * while unlocked and in the vault (encrypted) while locked.
 */
import { z } from 'zod';
import { deviceId } from './ipc-values';
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

const ConversationId = z.string().regex(/^[0-9a-f]{16,32}$/);

export const ChatDraft = z.object({
  /** The conversation the message was typed in, when there was one. */
  conversationId: ConversationId.optional(),
  text: z.string().min(1).max(MAX_CHAT_DRAFT_CHARS),
});
export type ChatDraft = z.infer<typeof ChatDraft>;

/** The most open edits main keeps: the chat has one per conversation. */
export const MAX_EDIT_DRAFTS = 10;

/** A sent message being edited in place ("Your edit"), in its conversation. */
export const EditDraft = z.object({
  conversationId: ConversationId,
  /** The message's index in the conversation's whole transcript. */
  entry: z.number().int().min(0).max(10_000_000),
  /** What the editor holds; it may be empty (the user cleared it to type anew). */
  text: z.string().max(MAX_CHAT_DRAFT_CHARS),
});
export type EditDraft = z.infer<typeof EditDraft>;
/** Every open edit, one per conversation. */
export const EditDrafts = z.array(EditDraft).min(1).max(MAX_EDIT_DRAFTS);

/** The most rename fields main keeps open: one per computer listed. */
export const MAX_NAME_DRAFTS = 64;
/** The rename fields open in Settings → Other computers: per computer, the name typed so far (as `devicesRename` takes it). */
export const NameDrafts = z
  .array(z.object({ id: deviceId, name: z.string().max(1000) }))
  .min(1)
  .max(MAX_NAME_DRAFTS);
export type NameDrafts = z.infer<typeof NameDrafts>;

export const Drafts = z.object({ memory: MemoryDraft.optional(), chat: ChatDraft.optional(), edit: EditDrafts.optional(), names: NameDrafts.optional() });
export type Drafts = z.infer<typeof Drafts>;
export type DraftKind = keyof Drafts;

/** One draft set (a value) or discarded (null). */
export const DraftPut = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), draft: MemoryDraft.nullable() }),
  z.object({ kind: z.literal('chat'), draft: ChatDraft.nullable() }),
  z.object({ kind: z.literal('edit'), draft: EditDrafts.nullable() }),
  z.object({ kind: z.literal('names'), draft: NameDrafts.nullable() }),
]);
export type DraftPut = z.infer<typeof DraftPut>;
