/**
 * Attachment calls: files from main's open dialog or dropped/pasted in the
 * window are checked and held in main until their message is sent; a sent
 * attachment's bytes can be read back for a thumbnail.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AttachmentError, checkSize } from '../../core/chat/attachments';
import { Conversations } from '../../core/chat/conversations';
import { requireLiveConversation } from '../../core/projects/live';
import { VaultError } from '../../core/vault/types';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { keyed, m, type LocalMessage } from '../../core/i18n/message';

export function attachmentHandlers(s: AppSession): HandlersFor<'chatAttachPick' | 'chatAttachData' | 'chatAttachDrop' | 'chatAttachmentGet'> {
  /** The conversation must exist (stored or temporary) before files are held for it. */
  const exists = async (id: string) => {
    if (!s.temporary.has(id)) await requireLiveConversation(s.unlocked(), id);
  };
  /**
   * Files are held only if no lock came while they were being chosen or read
   * (a lock forgets every pending file, and one held after it would outlive it)
   * and their conversation still exists (a temporary chat may have been closed).
   */
  const stillWanted = async (id: string, locks: number) => {
    if (s.locks !== locks) throw new VaultError('LOCKED', m('errors:attachment.lockedWhilePicking'));
    await exists(id);
    // Locked meanwhile by a lock that began after this call did (its count taken then): not held either.
    if (s.locks !== locks || !s.isUnlocked()) throw new VaultError('LOCKED', m('errors:attachment.lockedWhilePicking'));
  };
  return {
    chatAttachPick: async ({ id }) => {
      await exists(id);
      const locks = s.locks;
      const files = (await s.ctx.pickFiles?.()) ?? [];
      // In the order picked: a file read, or why it could not be.
      const read: Array<{ name: string; bytes: Uint8Array } | { refusal: LocalMessage }> = [];
      for (const file of files) {
        const name = path.basename(file);
        try {
          // Size before reading, so a huge pick is refused without loading it.
          const st = await fs.stat(file).catch(() => undefined);
          if (!st?.isFile()) throw new AttachmentError(m('errors:attachment.cannotRead', { name }));
          checkSize(name, st.size);
          const bytes = await fs.readFile(file).catch(() => undefined);
          if (!bytes) throw new AttachmentError(m('errors:attachment.cannotRead', { name }));
          read.push({ name, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
        } catch (err) {
          if (!(err instanceof AttachmentError)) throw err;
          read.push({ refusal: err.local });
        }
      }
      try {
        await stillWanted(id, locks);
      } finally {
        // Held below as copies (or not at all): these buffers are not kept.
        if (s.locks !== locks) for (const f of read) if ('bytes' in f) f.bytes.fill(0);
      }
      // Held with no await between the check and the last one, so a lock cannot come in between.
      const added = [];
      const refused: LocalMessage[] = [];
      for (const f of read) {
        if ('refusal' in f) {
          refused.push(f.refusal);
          continue;
        }
        const { name, bytes } = f;
        try {
          added.push(s.attachments.add(id, name, bytes));
        } catch (err) {
          if (!(err instanceof AttachmentError)) throw err;
          refused.push(err.local);
        } finally {
          bytes.fill(0);
        }
      }
      return { added, refused: refused.map((r) => r.text), refusedKeys: refused.map(keyed) };
    },
    chatAttachData: async ({ id, name, data }) => {
      const locks = s.locks;
      await stillWanted(id, locks);
      const bytes = Buffer.from(data, 'base64');
      try {
        return s.attachments.add(id, name, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } finally {
        bytes.fill(0);
      }
    },
    chatAttachDrop: async ({ id, attachmentIds }) => {
      s.attachments.drop(id, attachmentIds);
      return null;
    },
    chatAttachmentGet: async ({ conversationId, attachmentId }) => {
      const c = s.temporary.get(conversationId) ?? (await requireLiveConversation(s.unlocked(), conversationId));
      const ref = c.transcript.flatMap((e) => (e.role === 'user' ? (e.attachments ?? []) : [])).find((a) => a.id === attachmentId);
      const store = s.temporary.has(conversationId) ? s.temporary : new Conversations(s.unlocked());
      const bytes = ref ? await store.getAttachment(conversationId, attachmentId) : undefined;
      if (!ref || !bytes) throw new VaultError('NOT_FOUND', m('errors:attachment.notInConversation'));
      return { mediaType: ref.mediaType, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
    },
  };
}
