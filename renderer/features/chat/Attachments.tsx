import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AttachmentRef } from '../../../electron/shared/chat';
import { call, messageOf } from '../../lib/api';
import { formatNumber, locale } from '../../lib/format';
import { i18n } from '../../lib/i18n';

/**
 * The largest file the window hands to main (main checks every limit again;
 * this only spares reading a huge file into the page). It mirrors
 * MAX_ATTACHMENT_BYTES in electron/core/chat/attachments.ts, which the
 * renderer cannot import.
 */
const MAX_FILE_BYTES = 23_000_000;

/** The open conversation, whose sent attachments the transcript's thumbnails are read from. */
export const AttachmentConversation = createContext<string | undefined>(undefined);

/** Each kind of file's name (catalog keys). */
const KIND = {
  'image/png': 'attachments.kind.png',
  'image/jpeg': 'attachments.kind.jpeg',
  'image/gif': 'attachments.kind.gif',
  'image/webp': 'attachments.kind.webp',
  'application/pdf': 'attachments.kind.pdf',
  'text/plain': 'attachments.kind.text',
} as const satisfies Record<AttachmentRef['mediaType'], string>;

/**
 * A file's size as the attachment limits are counted (1000-based: the API's 5 MB an image is 5,000,000
 * bytes): "512 B", "12.3 kB", "50.0 MB", with the language's digits and separators.
 */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return i18n.t('chat:attachments.bytes', { size: formatNumber(bytes) });
  const [value, unit]: [number, string] = bytes < 1_000_000 ? [bytes / 1000, 'kilobyte'] : [bytes / 1_000_000, 'megabyte'];
  const digits = bytes < 10_000 || bytes >= 1_000_000 ? 1 : 0;
  return formatNumber(value, { style: 'unit', unit, unitDisplay: 'short', minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "PNG image · 12 kB": a file's kind and size, in the window's language. */
function metaOf(a: AttachmentRef): string {
  const t = i18n.getFixedT(null, 'chat');
  return t('attachments.meta', { kind: t(KIND[a.mediaType]), size: formatSize(a.bytes) });
}

/** Several file names as the language lists them ("a.png, b.pdf, c.txt"; "a.png、b.pdf"). */
const namesOf = (refs: AttachmentRef[]) => new Intl.ListFormat(locale(), { type: 'conjunction', style: 'narrow' }).format(refs.map((r) => r.name));

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
    if (refs.length) setStatus(i18n.t('chat:attachments.attached', { names: namesOf(refs) }));
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
        problems.push(i18n.t('chat:attachments.tooBig', { name: f.name, size: formatSize(f.size), max: formatSize(MAX_FILE_BYTES) }));
        continue;
      }
      try {
        refs.push(await call('chatAttachData', { id: id!, name: f.name || i18n.t('chat:attachments.pastedName'), data: await base64Of(f) }));
      } catch (err) {
        problems.push(messageOf(err));
      }
    }
    added(refs);
    setErrors(problems);
  };

  const remove = useCallback((ref: AttachmentRef) => {
    setPending((p) => p.filter((a) => a.id !== ref.id));
    setStatus(i18n.t('chat:attachments.removed', { name: ref.name }));
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
  const { t } = useTranslation('chat');
  if (!items.length) return null;
  return (
    <ul className="attachment-chips" aria-label={onRemove ? t('attachments.toSend') : t('attachments.list')}>
      {items.map((a) => (
        <li key={a.id} className="attachment-chip">
          <bdi className="file-name">{a.name}</bdi>
          <span className="file-meta">{metaOf(a)}</span>
          {onRemove && (
            <button type="button" className="chip-remove" aria-label={t('attachments.remove', { name: a.name })} title={t('attachments.remove', { name: a.name })} onClick={() => onRemove(a)}>
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
  const { t } = useTranslation('chat');
  return (
    <ul className="attachments" aria-label={t('attachments.list')}>
      {items.map((a) =>
        a.mediaType.startsWith('image/') ? (
          <li key={a.id} className="attachment-thumb">
            <Thumbnail item={a} />
          </li>
        ) : (
          <li key={a.id} className="file-card">
            <span className="file-kind" aria-hidden="true">
              {a.mediaType === 'application/pdf' ? t('attachments.badge.pdf') : t('attachments.badge.text')}
            </span>
            <bdi className="file-name">{a.name}</bdi>
            <span className="file-meta">{metaOf(a)}</span>
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
  const { t } = useTranslation('chat');
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
      {/* The alt text is the file's name, the user's words: the image is isolated like them. */}
      {url ? <img src={url} alt={item.name} data-user-text /> : <span className="thumb-placeholder">{failed ? t('attachments.unavailable') : t('attachments.loading')}</span>}
      <figcaption>
        <bdi className="file-name">{item.name}</bdi> <span className="file-meta">{formatSize(item.bytes)}</span>
      </figcaption>
    </figure>
  );
}
