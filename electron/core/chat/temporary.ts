/**
 * Temporary chats: conversations that live only in this process's memory
 * (never written to the vault, gone when closed, locked or quit) and whose
 * memory tool can read but not change memory.
 */
import { randomBytes } from 'node:crypto';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { ConversationSummary } from '../../shared/chat';
import { MemoryToolError } from '../memory/errors';
import { VaultError } from '../vault/types';
import { refuseRewindOfVersions, summaryOf, UNTITLED, withoutLastExchange, type StoredConversation } from './conversation-values';
import { branchAt, dropUnsent, groupedVersionsOf, showVersion, type Fork, type Tail, type TailStore } from './branches';
import type { AttachmentRef } from '../../shared/chat';
import type { AttachmentBytes } from './attachments-send';
import { m } from '../i18n/message';

/** What Claude is told when a temporary chat tries to change memory. */
export const TEMPORARY_MESSAGE = 'This is a temporary chat: it does not change memory. Nothing was written; tell the user if something should be remembered.';

/** The memory tool of a temporary chat: `view` as usual, every write answered with an error and nothing changed. */
export function readOnlyMemory(handlers: MemoryToolHandlers): MemoryToolHandlers {
  const refuse = (): never => {
    throw new MemoryToolError(TEMPORARY_MESSAGE);
  };
  return { view: (c) => handlers.view(c), create: refuse, str_replace: refuse, insert: refuse, delete: refuse, rename: refuse };
}

/** The part of a conversation store a turn uses. Conversations (stored) and TemporaryConversations both have it. */
export interface ConversationStore extends AttachmentBytes {
  require(id: string): Promise<StoredConversation>;
  /** `base`: the conversation as the caller last read it, which a store may use to write only what changed. */
  update(id: string, change: (c: StoredConversation) => StoredConversation, base?: StoredConversation): Promise<StoredConversation | undefined>;
}

/** Versions of a conversation (branches.ts): what both stores offer for regenerating, editing and switching. */
export interface VersionedStore {
  branch(id: string, at: number, by: Fork['by']): Promise<{ message: { text: string; attachments: AttachmentRef[] }; before: number }>;
  showVersion(id: string, at: number, version: number): Promise<StoredConversation>;
  dropUnsent(id: string, at: number, before: number): Promise<void>;
  /** The versions the window shows of `c` (conversation `id`), grouped by message (groupedVersionsOf). */
  versionsShown(id: string, c: StoredConversation): ReturnType<typeof groupedVersionsOf>;
}

/** Temporary conversations held in this object only; `clear` (on lock or quit) forgets them all. */
export class TemporaryConversations implements ConversationStore, VersionedStore {
  private readonly byId = new Map<string, StoredConversation>();
  /** Other versions' tails by conversation, in memory only like the chats themselves. */
  private readonly tailsById = new Map<string, Map<string, Tail>>();
  /** Attachment bytes by conversation, in memory only like the chats themselves. */
  private readonly files = new Map<string, Map<string, Uint8Array>>();

  /** A new temporary conversation in `project`. */
  create(project?: string, model?: string): StoredConversation {
    const now = Date.now();
    const c: StoredConversation = { id: randomBytes(8).toString('hex'), title: UNTITLED, created: now, updated: now, messages: [], transcript: [], temporary: true, ...(project ? { project } : {}), ...(model ? { model } : {}) };
    this.byId.set(c.id, c);
    return c;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): StoredConversation | undefined {
    return this.byId.get(id);
  }

  async require(id: string): Promise<StoredConversation> {
    const c = this.byId.get(id);
    if (!c) throw new VaultError('NOT_FOUND', m('errors:conversation.temporaryGone'));
    return c;
  }

  async update(id: string, change: (c: StoredConversation) => StoredConversation): Promise<StoredConversation | undefined> {
    const c = this.byId.get(id);
    if (!c) return undefined;
    const next = { ...change(c), temporary: true };
    this.byId.set(id, next);
    return next;
  }

  /** As Conversations.rewindLast: takes back the last exchange and returns the user's words. */
  async rewindLast(id: string): Promise<string> {
    const c = await this.require(id);
    refuseRewindOfVersions(c);
    const { text, rest } = withoutLastExchange(c);
    this.byId.set(id, rest);
    return text;
  }

  async branch(id: string, at: number, by: Fork['by']): Promise<{ message: { text: string; attachments: AttachmentRef[] }; before: number }> {
    const { next, message, before, release } = await branchAt(await this.require(id), at, by, this.tails(id));
    this.byId.set(id, next);
    if (release) await this.tails(id).remove(release);
    return { message, before };
  }

  async showVersion(id: string, at: number, version: number): Promise<StoredConversation> {
    const { next, release } = await showVersion(await this.require(id), at, version, this.tails(id));
    this.byId.set(id, next);
    if (release) await this.tails(id).remove(release);
    return next;
  }

  versionsShown(id: string, c: StoredConversation): ReturnType<typeof groupedVersionsOf> {
    return groupedVersionsOf(c, this.tails(id));
  }

  async dropUnsent(id: string, at: number, before: number): Promise<void> {
    const c = this.byId.get(id);
    const done = c && (await dropUnsent(c, at, before, this.tails(id)));
    if (!done) return;
    this.byId.set(id, done.next);
    if (done.release) await this.tails(id).remove(done.release);
  }

  private tails(id: string): TailStore {
    const map = this.tailsById.get(id) ?? new Map<string, Tail>();
    this.tailsById.set(id, map);
    return { put: async (k, t) => void map.set(k, t), get: async (k) => map.get(k), remove: async (k) => void map.delete(k) };
  }

  async putAttachment(conversationId: string, attachmentId: string, bytes: Uint8Array): Promise<void> {
    if (!this.byId.has(conversationId)) throw new VaultError('NOT_FOUND', m('errors:conversation.temporaryGone'));
    const files = this.files.get(conversationId) ?? new Map<string, Uint8Array>();
    files.set(attachmentId, bytes.slice());
    this.files.set(conversationId, files);
  }

  async getAttachment(conversationId: string, attachmentId: string): Promise<Uint8Array | undefined> {
    return this.files.get(conversationId)?.get(attachmentId);
  }

  /** As Conversations.pruneAttachments, overwriting the bytes let go of. */
  async pruneAttachments(conversationId: string, keep: ReadonlySet<string>): Promise<void> {
    const files = this.files.get(conversationId);
    for (const [id, bytes] of files ?? []) {
      if (keep.has(id)) continue;
      bytes.fill(0);
      files!.delete(id);
    }
  }

  list(): ConversationSummary[] {
    return [...this.byId.values()].map((c) => ({ ...summaryOf(c), temporary: true }));
  }

  /** Forgets one temporary chat (closed by the user). */
  delete(id: string): void {
    this.byId.delete(id);
    this.tailsById.delete(id);
    this.forgetFiles(id);
  }

  /** Overwrites a closed chat's attachment bytes, so they do not linger in this process's memory. */
  private forgetFiles(id: string): void {
    for (const bytes of this.files.get(id)?.values() ?? []) bytes.fill(0);
    this.files.delete(id);
  }

  /** Forgets every temporary chat (lock, quit). */
  clear(): void {
    for (const id of [...this.files.keys()]) this.forgetFiles(id);
    this.byId.clear();
    this.tailsById.clear();
  }
}
