/**
 * What may be attached to a message, decided from the bytes themselves: the
 * file's name and any type the caller claims are never trusted (a `.png` that
 * is really HTML is refused). Images (PNG, JPEG, GIF, WebP), PDFs and UTF-8
 * text files are accepted within the Messages API's limits; SVG and HTML are
 * refused, as they are markup that can carry script, not pictures or text.
 *
 * Limits, from Anthropic's documentation (checked 2026-11):
 * - Images and vision (docs.claude.com/en/docs/build-with-claude/vision): at
 *   most 8000×8000 px per image; with more than 20 images in one request, at
 *   most 2000×2000 px; up to 100 images per request (200k-context models; more
 *   on others, so 100 is the safe bound); 32 MB per request on standard endpoints.
 * - The API refuses an image whose base64 exceeds 5 MB ("image exceeds 5 MB
 *   maximum: … bytes > 5242880 bytes"), so the raw file may be at most 3/4 of that.
 * - PDF support (docs.claude.com/en/docs/build-with-claude/pdf-support): 32 MB
 *   per request, 100 pages per request, standard PDFs (no password or encryption).
 */
import type { AttachmentMediaType } from '../../shared/chat';
import { VaultError } from '../vault/types';
import { m, type ErrorKey, type LocalMessage } from '../i18n/message';

/** The API's per-request body limit (32 MB on standard endpoints; decimal, the smaller reading). */
export const MAX_REQUEST_BYTES = 32_000_000;
/** The API's limit on an image's base64 text (5 MiB, the figure its error message gives). */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** The largest image file whose base64 stays within MAX_IMAGE_BASE64. */
export const MAX_IMAGE_BYTES = (MAX_IMAGE_BASE64 / 4) * 3;
/** The largest image side the API takes. */
export const MAX_IMAGE_SIDE = 8000;
/** The largest image side when a request holds more than MANY_IMAGES images. */
export const MAX_IMAGE_SIDE_MANY = 2000;
export const MANY_IMAGES = 20;
/** Images per request. */
export const MAX_IMAGES = 100;
/** PDF pages per request. */
export const MAX_PDF_PAGES = 100;
/** The largest PDF whose base64 (4/3 of it) still leaves room in a 32 MB request for the conversation. */
export const MAX_PDF_BYTES = 23_000_000;
/**
 * The largest text file: sent as text, it is read as tokens, and about 1 MB of
 * text is already more than a 200k-token context window holds.
 */
export const MAX_TEXT_BYTES = 1_000_000;
/** The largest file of any kind (what the window may hand over at all). */
export const MAX_ATTACHMENT_BYTES = MAX_PDF_BYTES;
/** Attachments waiting to go with one message: never more than a request can carry (checked again when it is sent). */
export const MAX_PENDING = MAX_IMAGES;
export const MAX_PENDING_BYTES = MAX_REQUEST_BYTES;
/** Longest kept file name, in characters. */
export const MAX_NAME_LENGTH = 120;

/** An attachment that passed every check. */
export interface CheckedAttachment {
  name: string;
  mediaType: AttachmentMediaType;
  bytes: Uint8Array;
  /** Pixel size of an image. */
  width?: number;
  height?: number;
}

/** Refusals say what was wrong with which file and what to do instead. */
export class AttachmentError extends VaultError {
  constructor(message: string | LocalMessage) {
    super('INVALID', message);
  }
}

const mb = (n: number) => `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)} MB`;

/**
 * A file name safe to show and store: the last path part only (a name like
 * `../../etc/passwd` becomes `passwd`), Unicode NFC, without control, format
 * or bidi characters (U+202E could make `gpj.exe` read as `exe.jpg`), trimmed
 * and capped at MAX_NAME_LENGTH characters keeping its extension.
 */
export function cleanName(raw: string): string {
  const last = raw.split(/[/\\]/).filter((p) => p !== '').at(-1) ?? '';
  // \p{Cc}: control characters; \p{Cf}: format characters, the bidi overrides and isolates among them.
  let name = last.normalize('NFC').replace(/[\t\n\v\f\r\u2028\u2029]/g, ' ').replace(/[\p{Cc}\p{Cf}]/gu, '').replace(/\s+/g, ' ').trim();
  name = name.replace(/^\.+/, '').trim();
  if (!name) return 'attachment';
  const chars = [...name];
  if (chars.length <= MAX_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
  return [...name.slice(0, name.length - ext.length)].slice(0, MAX_NAME_LENGTH - [...ext].length - 1).join('') + '…' + ext;
}

/** The type the bytes are, by their magic numbers; text is anything else that is valid UTF-8 without NUL bytes. */
export function sniff(b: Uint8Array): AttachmentMediaType | 'html' | 'binary' {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  if (at(0, 0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  const text = utf8Text(b);
  if (text === undefined) return 'binary';
  return looksLikeMarkup(text) ? 'html' : 'text/plain';
}

/** The bytes as text if they are valid UTF-8 without NUL (a NUL means a binary format). */
export function utf8Text(b: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(b);
    return text.includes('\u0000') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** HTML, SVG or XML documents, which a browser would run rather than show as text. */
function looksLikeMarkup(text: string): boolean {
  const head = text.slice(0, 1024).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return /^<(!doctype\s+html|html[\s>]|svg[\s>]|\?xml|head[\s>]|body[\s>]|script[\s>]|iframe[\s>])/.test(head) || /<svg[\s>]/.test(head);
}

/** An image's pixel size from its header, or undefined if the header is cut short or malformed. */
export function imageSize(b: Uint8Array, type: AttachmentMediaType): { width: number; height: number } | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ok = (w: number, h: number) => (w > 0 && h > 0 ? { width: w, height: h } : undefined);
  try {
    if (type === 'image/png') return b.length >= 24 && String.fromCharCode(...b.subarray(12, 16)) === 'IHDR' ? ok(dv.getUint32(16), dv.getUint32(20)) : undefined;
    if (type === 'image/gif') return b.length >= 10 ? ok(dv.getUint16(6, true), dv.getUint16(8, true)) : undefined;
    if (type === 'image/webp') return webpSize(b, dv);
    if (type === 'image/jpeg') return jpegSize(b, dv);
  } catch {
    return undefined;
  }
  return undefined;
}

function webpSize(b: Uint8Array, dv: DataView): { width: number; height: number } | undefined {
  const chunk = String.fromCharCode(...b.subarray(12, 16));
  const u24 = (i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
  if (chunk === 'VP8X' && b.length >= 30) return { width: 1 + u24(24), height: 1 + u24(27) };
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = dv.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ' && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    const w = dv.getUint16(26, true) & 0x3fff;
    const h = dv.getUint16(28, true) & 0x3fff;
    return w && h ? { width: w, height: h } : undefined;
  }
  return undefined;
}

function jpegSize(b: Uint8Array, dv: DataView): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame's size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const h = dv.getUint16(i + 5);
      const w = dv.getUint16(i + 7);
      return w && h ? { width: w, height: h } : undefined;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    i += 2 + dv.getUint16(i + 2);
  }
  return undefined;
}

/** A best-effort page count of a PDF (page objects written out; pages in compressed object streams are not seen). */
export function pdfPages(b: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(b);
  return (text.match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

const EXTENSIONS: Record<string, AttachmentMediaType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};
const LABEL = {
  'image/png': 'errors:attachment.kind.png',
  'image/jpeg': 'errors:attachment.kind.jpeg',
  'image/gif': 'errors:attachment.kind.gif',
  'image/webp': 'errors:attachment.kind.webp',
  'application/pdf': 'errors:attachment.kind.pdf',
  'text/plain': 'errors:attachment.kind.text',
} as const satisfies Record<AttachmentMediaType, ErrorKey>;
const label = (type: AttachmentMediaType) => m(LABEL[type]);

/** Throws the AttachmentError for a file of `size` bytes that is empty or larger than any attachment may be (before reading it). */
export function checkSize(rawName: string, size: number): void {
  const name = cleanName(rawName);
  if (size === 0) throw new AttachmentError(m('errors:attachment.empty', { name }));
  if (size > MAX_ATTACHMENT_BYTES) throw new AttachmentError(m('errors:attachment.tooBig', { name, size: mb(size), pdf: mb(MAX_PDF_BYTES), image: mb(MAX_IMAGE_BYTES), text: mb(MAX_TEXT_BYTES) }));
}

/**
 * Checks one file for attaching and returns what it is. Throws an
 * AttachmentError naming the file and saying what to do instead when it is
 * empty, too large, of a kind Claude cannot read (or markup), named as one
 * kind but another, not UTF-8 text, or an image too large in pixels.
 */
export function checkAttachment(rawName: string, bytes: Uint8Array): CheckedAttachment {
  const name = cleanName(rawName);
  checkSize(rawName, bytes.length);
  const kind = sniff(bytes);
  if (kind === 'html') throw new AttachmentError(m('errors:attachment.markup', { name }));
  if (kind === 'binary') {
    const ext = name.split('.').at(-1)?.toLowerCase() ?? '';
    throw new AttachmentError(ext === 'txt' || ext === 'md' || ext === 'csv' ? m('errors:attachment.notUtf8', { name }) : m('errors:attachment.unreadable', { name }));
  }
  const claimed = EXTENSIONS[name.split('.').at(-1)?.toLowerCase() ?? ''];
  if (claimed && claimed !== kind && !(claimed.startsWith('image/') && kind.startsWith('image/'))) {
    throw new AttachmentError(m('errors:attachment.misnamed', { name, claimed: label(claimed), kind: label(kind) }));
  }
  if (kind === 'text/plain') {
    if (bytes.length > MAX_TEXT_BYTES) throw new AttachmentError(m('errors:attachment.textTooBig', { name, size: mb(bytes.length), limit: mb(MAX_TEXT_BYTES) }));
    return { name, mediaType: kind, bytes };
  }
  if (kind === 'application/pdf') {
    if (bytes.length > MAX_PDF_BYTES) throw new AttachmentError(m('errors:attachment.pdfTooBig', { name, size: mb(bytes.length), limit: mb(MAX_PDF_BYTES) }));
    const pages = pdfPages(bytes);
    if (pages > MAX_PDF_PAGES) throw new AttachmentError(m('errors:attachment.pdfPages', { name, count: pages, limit: MAX_PDF_PAGES }));
    return { name, mediaType: kind, bytes };
  }
  if (bytes.length > MAX_IMAGE_BYTES) throw new AttachmentError(m('errors:attachment.imageTooBig', { name, size: mb(bytes.length), limit: mb(MAX_IMAGE_BYTES) }));
  const size = imageSize(bytes, kind);
  if (!size) throw new AttachmentError(m('errors:attachment.badHeader', { name, kind: label(kind) }));
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE) {
    throw new AttachmentError(m('errors:attachment.imageTooLarge', { name, width: size.width, height: size.height, max: MAX_IMAGE_SIDE }));
  }
  return { name, mediaType: kind, bytes, ...size };
}
