/**
 * Attachments in the API history. The stored history keeps a small reference
 * block where an attachment goes (an `image` or `document` block whose source
 * is the URL `mnemo-attachment:<id>`), so the conversation's log stays small
 * and the bytes live once, as their own encrypted value. Before each request
 * every reference is replaced by the bytes as the API expects them (base64
 * images and PDFs, text documents as text), and the request is checked against
 * the API's per-request limits so an oversized one fails here, naming the
 * attachment, instead of at the API.
 */
import { randomBytes } from 'node:crypto';
import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AttachmentRef, TranscriptEntry } from '../../shared/chat';
import { AttachmentError, imageSize, MANY_IMAGES, MAX_IMAGE_SIDE_MANY, MAX_IMAGES, MAX_PDF_PAGES, MAX_REQUEST_BYTES, pdfPages } from './attachments';
import { m } from '../i18n/message';

const SCHEME = 'mnemo-attachment:';

/** Where a conversation's attachment bytes are kept: the vault for a stored conversation, memory for a temporary chat. */
export interface AttachmentBytes {
  putAttachment(conversationId: string, attachmentId: string, bytes: Uint8Array): Promise<void>;
  getAttachment(conversationId: string, attachmentId: string): Promise<Uint8Array | undefined>;
  /** Removes the conversation's stored attachments whose ids are not in `keep` (what its messages name). */
  pruneAttachments(conversationId: string, keep: ReadonlySet<string>): Promise<void>;
}

/** The internal-store key of one attachment (outside /memories, grouped by conversation so deleting one finds them). */
export const attachmentKey = (conversationId: string, attachmentId: string) => `attachments/${conversationId}/${attachmentId}`;
export const attachmentPrefix = (conversationId: string) => `attachments/${conversationId}/`;

/** A fresh attachment id. */
export const newAttachmentId = (): string => randomBytes(8).toString('hex');

/** The block kept in the stored history for an attachment. */
export function referenceBlock(ref: AttachmentRef): BetaContentBlockParam {
  const source = { type: 'url' as const, url: `${SCHEME}${ref.id}` };
  return ref.mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'document', source, title: ref.name };
}

/** Every attachment the transcript's user messages refer to, by id. */
export function attachmentsOf(transcript: TranscriptEntry[]): Map<string, AttachmentRef> {
  const out = new Map<string, AttachmentRef>();
  for (const e of transcript) if (e.role === 'user') for (const a of e.attachments ?? []) out.set(a.id, a);
  return out;
}

function referenceId(block: BetaContentBlockParam): string | undefined {
  if (block.type !== 'image' && block.type !== 'document') return undefined;
  const src = block.source as { type?: string; url?: string };
  return src.type === 'url' && typeof src.url === 'string' && src.url.startsWith(SCHEME) ? src.url.slice(SCHEME.length) : undefined;
}

/** The decoded bytes an expanded request carries, for the checks. */
interface Sent {
  ref: AttachmentRef;
  bytes: Uint8Array;
}

/**
 * The history with every reference replaced by its attachment's content, as
 * sent to the API. An attachment missing from the store (a damaged vault)
 * becomes a short text saying so, rather than stopping the conversation.
 */
export async function expandAttachments(
  messages: BetaMessageParam[],
  refs: Map<string, AttachmentRef>,
  load: (id: string) => Promise<Uint8Array | undefined>,
): Promise<{ messages: BetaMessageParam[]; sent: Sent[] }> {
  const sent: Sent[] = [];
  const out: BetaMessageParam[] = [];
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string' || !m.content.some((b) => referenceId(b) !== undefined)) {
      out.push(m);
      continue;
    }
    const content: BetaContentBlockParam[] = [];
    for (const block of m.content) {
      const id = referenceId(block);
      if (id === undefined) {
        content.push(block);
        continue;
      }
      const ref = refs.get(id);
      const bytes = ref ? await load(id) : undefined;
      if (!ref || !bytes) {
        content.push({ type: 'text', text: `(An attachment${ref ? ` “${ref.name}”` : ''} that was here is missing from the vault.)` });
        continue;
      }
      sent.push({ ref, bytes });
      content.push(dataBlock(ref, bytes));
    }
    out.push({ role: 'user', content });
  }
  return { messages: out, sent };
}

function dataBlock(ref: AttachmentRef, bytes: Uint8Array): BetaContentBlockParam {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (ref.mediaType === 'text/plain') return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: data.toString('utf8') }, title: ref.name };
  if (ref.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data.toString('base64') }, title: ref.name };
  return { type: 'image', source: { type: 'base64', media_type: ref.mediaType, data: data.toString('base64') } };
}

const mb = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;

/**
 * Throws an AttachmentError, naming the attachment to remove, if the request
 * would break one of the API's per-request limits: more than MAX_IMAGES
 * images, an image over 2000×2000 px when there are more than MANY_IMAGES,
 * more than MAX_PDF_PAGES PDF pages, or a body over MAX_REQUEST_BYTES.
 * `fixed` is the size of everything but the messages (system prompt, tools);
 * `fresh`, the ids attached to this message, named first as they can be taken off.
 */
export function checkRequest(messages: BetaMessageParam[], sent: Sent[], fixed: number, fresh: ReadonlySet<string> = new Set()): void {
  const newest = (list: Sent[]) => list.at(-1)!.ref.name;
  const images = sent.filter((s) => s.ref.mediaType.startsWith('image/'));
  if (images.length > MAX_IMAGES) {
    throw new AttachmentError(m('errors:attachment.tooManyImages', { count: images.length, limit: MAX_IMAGES, name: newest(images) }));
  }
  if (images.length > MANY_IMAGES) {
    for (const s of images) {
      const size = imageSize(s.bytes, s.ref.mediaType);
      if (size && (size.width > MAX_IMAGE_SIDE_MANY || size.height > MAX_IMAGE_SIDE_MANY)) {
        throw new AttachmentError(m('errors:attachment.imageTooLargeMany', { name: s.ref.name, width: size.width, height: size.height, many: MANY_IMAGES, max: MAX_IMAGE_SIDE_MANY }));
      }
    }
  }
  const pdfs = sent.filter((s) => s.ref.mediaType === 'application/pdf');
  const pages = pdfs.reduce((n, s) => n + pdfPages(s.bytes), 0);
  if (pages > MAX_PDF_PAGES) throw new AttachmentError(m('errors:attachment.tooManyPages', { count: pages, limit: MAX_PDF_PAGES, name: newest(pdfs) }));
  const size = fixed + Buffer.byteLength(JSON.stringify(messages));
  if (size > MAX_REQUEST_BYTES) {
    // The largest of this message's own attachments (the user can take it off); else the largest earlier one.
    const mine = sent.filter((s) => fresh.has(s.ref.id));
    const largest = [...(mine.length ? mine : sent)].sort((a, b) => b.bytes.length - a.bytes.length)[0];
    const sizes = { size: mb(size), limit: mb(MAX_REQUEST_BYTES) };
    throw new AttachmentError(largest ? m('errors:attachment.requestTooBigNamed', { ...sizes, name: largest.ref.name, fileSize: mb(largest.bytes.length) }) : m('errors:attachment.requestTooBig', sizes));
  }
}
