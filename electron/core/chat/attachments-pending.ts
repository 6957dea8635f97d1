/**
 * Attachments the window has added to the message being written but not yet
 * sent. Main holds their bytes (the window only learns an id, the cleaned
 * name, the type and the size) until they are sent with the message, removed,
 * or forgotten at lock and quit.
 */
import type { AttachmentRef } from '../../shared/chat';
import { AttachmentError, checkAttachment, MAX_PENDING, MAX_PENDING_BYTES } from './attachments';
import { newAttachmentId } from './attachments-send';
import type { PendingAttachment } from './turn';
import { m } from '../i18n/message';

const mb = (n: number) => `${(n / 1_000_000).toFixed(0)} MB`;

/**
 * Pending bytes across every conversation: a few messages' worth. Each
 * conversation's own cap alone would let a window (or a compromised page)
 * spread files over many conversations until main runs out of memory.
 */
export const MAX_PENDING_TOTAL_BYTES = 3 * MAX_PENDING_BYTES;

/** Pending attachments per conversation. */
export class PendingAttachments {
  private readonly byConversation = new Map<string, PendingAttachment[]>();

  /**
   * Checks a file (checkAttachment) and holds it for `conversationId`'s next
   * message. Throws an AttachmentError if it is refused or if the message
   * would then carry more than a request can.
   */
  add(conversationId: string, rawName: string, bytes: Uint8Array): AttachmentRef {
    const checked = checkAttachment(rawName, bytes);
    const list = this.byConversation.get(conversationId) ?? [];
    if (list.length >= MAX_PENDING) throw new AttachmentError(m('errors:attachment.pendingCount', { name: checked.name, count: MAX_PENDING }));
    const total = list.reduce((n, a) => n + a.bytes, 0) + bytes.length;
    if (total > MAX_PENDING_BYTES) throw new AttachmentError(m('errors:attachment.pendingBytes', { name: checked.name, limit: mb(MAX_PENDING_BYTES) }));
    if (this.totalBytes() + bytes.length > MAX_PENDING_TOTAL_BYTES) {
      throw new AttachmentError(m('errors:attachment.pendingTotal', { name: checked.name, limit: mb(MAX_PENDING_TOTAL_BYTES) }));
    }
    const pending: PendingAttachment = { id: newAttachmentId(), name: checked.name, mediaType: checked.mediaType, bytes: bytes.length, data: bytes.slice() };
    this.byConversation.set(conversationId, [...list, pending]);
    const { data: _data, ...ref } = pending;
    return ref;
  }

  /**
   * Holds an attachment already checked and stored (one of a message taken
   * back), under its own id, so sending it again refers to the same stored value.
   */
  hold(conversationId: string, ref: AttachmentRef, bytes: Uint8Array): AttachmentRef {
    const list = (this.byConversation.get(conversationId) ?? []).filter((a) => a.id !== ref.id);
    this.byConversation.set(conversationId, [...list, { ...ref, data: bytes.slice() }]);
    return { id: ref.id, name: ref.name, mediaType: ref.mediaType, bytes: ref.bytes };
  }

  private totalBytes(): number {
    let n = 0;
    for (const list of this.byConversation.values()) for (const a of list) n += a.data.length;
    return n;
  }

  /** Every attachment held for `conversationId`, in the order added. */
  all(conversationId: string): PendingAttachment[] {
    return [...(this.byConversation.get(conversationId) ?? [])];
  }

  /** The held attachments with these ids, in that order; NOT_FOUND-style AttachmentError if one is not held for this conversation. */
  get(conversationId: string, ids: string[]): PendingAttachment[] {
    const list = this.byConversation.get(conversationId) ?? [];
    return ids.map((id) => {
      const a = list.find((p) => p.id === id);
      if (!a) throw new AttachmentError(m('errors:attachment.noLongerPending'));
      return a;
    });
  }

  /** Lets go of attachments (sent with their message, or removed by the user), overwriting their bytes. */
  drop(conversationId: string, ids: string[]): void {
    const list = this.byConversation.get(conversationId) ?? [];
    const gone = new Set(ids);
    for (const a of list) if (gone.has(a.id)) a.data.fill(0);
    const rest = list.filter((a) => !gone.has(a.id));
    if (rest.length) this.byConversation.set(conversationId, rest);
    else this.byConversation.delete(conversationId);
  }

  /** Forgets every held attachment (lock, quit), overwriting the bytes. */
  clear(): void {
    for (const list of this.byConversation.values()) for (const a of list) a.data.fill(0);
    this.byConversation.clear();
  }
}
