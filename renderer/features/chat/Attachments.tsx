import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { AttachmentRef } from '../../../electron/shared/chat';
import { call, messageOf } from '../../lib/api';

/**
 * The largest file the window hands to main (main checks every limit again;
 * this only spares reading a huge file into the page). It mirrors
 * MAX_ATTACHMENT_BYTES in electron/core/chat/attachments.ts, which the
 * renderer cannot import.
 */
const MAX_FILE_BYTES = 23_000_000;

/** The open conversation, whose sent attachments the transcript's thumbnails are read from. */
export const AttachmentConversation = createContext<string | undefined>(undefined);

const KIND: Record<AttachmentRef['mediaType'], string> = {
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'application/pdf': 'PDF',
  'text/plain': 'Text',
};

export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let out = '';
  // In slices: String.fromCharCode with millions of arguments overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(out);
}

/**
 * The attachments of the message being written: added by main's file dialog,
 * a drop or a paste, held in main (the window keeps only their names and
 * sizes), removed with a chip's button. Errors say which file and why.
 */
export function useAttachments(conversation: () => Promise<string>) {
  const [pending, setPending] = useState<AttachmentRef[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const [status, setStatus] = useState('');
  const owner = useRef<string | undefined>(undefined);
  const added = (refs: AttachmentRef[]) => {
    if (refs.length) setStatus(`Attached ${refs.map((r) => r.name).join(', ')}.`);
    setPending((p) => [...p, ...refs]);
  };
  const target = async () => {
    const id = await conversation();
    owner.current = id;
    return id;
  };

  const pick = async () => {
    setErrors([]);
    try {
      const r = await call('chatAttachPick', { id: await target() });
      added(r.added);
      setErrors(r.refused);
    } catch (err) {
      setErrors([messageOf(err)]);
    }
  };

  const addFiles = async (files: File[]) => {
    if (!files.length) return;
    setErrors([]);
    const problems: string[] = [];
    const refs: AttachmentRef[] = [];
    const id = await target().catch((err: unknown) => (problems.push(messageOf(err)), undefined));
    for (const f of id ? files : []) {
      if (f.size > MAX_FILE_BYTES) {
        problems.push(`“${f.name}” is ${formatSize(f.size)}; attachments can be at most ${formatSize(MAX_FILE_BYTES)} (a PDF), less for images and text.`);
        continue;
      }
      try {
        refs.push(await call('chatAttachData', { id: id!, name: f.name || 'pasted', data: await base64Of(f) }));
      } catch (err) {
        problems.push(messageOf(err));
      }
    }
    added(refs);
    setErrors(problems);
  };

  const remove = useCallback((ref: AttachmentRef) => {
    setPending((p) => p.filter((a) => a.id !== ref.id));
    setStatus(`Removed ${ref.name}.`);
    if (owner.current) void call('chatAttachDrop', { id: owner.current, attachmentIds: [ref.id] }).catch(() => undefined);
  }, []);

  /** Lets go of everything (the user moved to another conversation). */
  const discard = useCallback(() => {
    setPending((p) => {
      if (p.length && owner.current) void call('chatAttachDrop', { id: owner.current, attachmentIds: p.map((a) => a.id) }).catch(() => undefined);
      return [];
    });
    setErrors([]);
  }, []);

  /** Shows attachments main holds again for `id` (a message taken back to edit). */
  const restore = useCallback((id: string, refs: AttachmentRef[]) => {
    if (!refs.length) return;
    owner.current = id;
    setPending((p) => [...p.filter((a) => !refs.some((r) => r.id === a.id)), ...refs]);
  }, []);

  /** Lets go of what waits for another conversation than `id` (the user switched). */
  const keepOnly = useCallback((id: string | undefined) => {
    if (owner.current && owner.current !== id) discard();
  }, [discard]);

  return { pending, setPending, errors, setErrors, status, pick, addFiles, remove, discard, keepOnly, restore };
}
export type AttachmentsState = ReturnType<typeof useAttachments>;

/** The chips of attachments waiting to be sent, each with a Remove button. */
export function PendingChips({ items, onRemove }: { items: AttachmentRef[]; onRemove?: (ref: AttachmentRef) => void }) {
  if (!items.length) return null;
  return (
    <ul className="attachment-chips" aria-label={onRemove ? 'Attachments to send' : 'Attachments'}>
      {items.map((a) => (
        <li key={a.id} className="attachment-chip">
          <span className="file-name">{a.name}</span>
          <span className="file-meta">
            {KIND[a.mediaType]} · {formatSize(a.bytes)}
          </span>
          {onRemove && (
            <button type="button" className="chip-remove" aria-label={`Remove ${a.name}`} title={`Remove ${a.name}`} onClick={() => onRemove(a)}>
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A sent message's attachments: images as thumbnails, other files as cards with name, type and size. */
export function SentAttachments({ items }: { items: AttachmentRef[] }) {
  return (
    <ul className="attachments" aria-label="Attachments">
      {items.map((a) =>
        a.mediaType.startsWith('image/') ? (
          <li key={a.id} className="attachment-thumb">
            <Thumbnail item={a} />
          </li>
        ) : (
          <li key={a.id} className="file-card">
            <span className="file-kind" aria-hidden="true">
              {a.mediaType === 'application/pdf' ? 'PDF' : 'TXT'}
            </span>
            <span className="file-name">{a.name}</span>
            <span className="file-meta">
              {KIND[a.mediaType]} · {formatSize(a.bytes)}
            </span>
          </li>
        ),
      )}
    </ul>
  );
}

/**
 * An image read back from main and shown from a blob: URL made here (the
 * page's CSP allows `img-src blob:`; no file path or remote URL is involved).
 */
function Thumbnail({ item }: { item: AttachmentRef }) {
  const conversationId = useContext(AttachmentConversation);
  const [url, setUrl] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!conversationId) return;
    let made: string | undefined;
    let live = true;
    call('chatAttachmentGet', { conversationId, attachmentId: item.id }).then(
      ({ mediaType, data }) => {
        if (!live) return;
        const bin = atob(data);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        made = URL.createObjectURL(new Blob([bytes], { type: mediaType }));
        setUrl(made);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [conversationId, item.id]);
  return (
    <figure>
      {url ? <img src={url} alt={item.name} /> : <span className="thumb-placeholder">{failed ? 'Image unavailable' : 'Loading…'}</span>}
      <figcaption>
        <span className="file-name">{item.name}</span> <span className="file-meta">{formatSize(item.bytes)}</span>
      </figcaption>
    </figure>
  );
}
