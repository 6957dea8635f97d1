/**
 * Path rules of the memory tool. Every path Claude sends is checked here before
 * the vault sees it: only `/memories` and below, one canonical spelling per
 * memory, nothing that could be read as traversal by any layer that decodes,
 * normalises or displays it.
 */

import { m, type LocalMessage } from '../i18n/message';

/** The root of the memory namespace, as Claude knows it. */
export const MEMORY_ROOT = '/memories';
// The limits below are the smallest of the common file systems', so every memory can be exported
// as a plain file on Linux, macOS and Windows: a vault may outlive the computer it was made on.
/** Longest accepted path, in UTF-8 bytes (after NFC normalisation), /memories included: Linux's PATH_MAX is 4,096, macOS's 1,024. */
export const MAX_PATH_BYTES = 1024;
/** Longest accepted name of one file or directory, in UTF-8 bytes (ext4, APFS); also checked in decomposed UTF-16 for HFS+ and NTFS. */
export const MAX_SEGMENT_BYTES = 255;
/** Most names below /memories in one path: /memories plus 31 folders plus a file keeps exports well inside Windows' path limits. */
export const MAX_DEPTH = 32;

/**
 * A path Claude (or a user) gave that the memory tool refuses. The message
 * never repeats the path: a refused path may name a place on the host.
 */
export class MemoryPathError extends Error {
  /**
   * `message` is what Claude is told, literal English (the tool's contract); `local`, when given, is the
   * same said for the window and the CLI, by catalog key, in the user's language.
   */
  constructor(
    message: string,
    readonly local?: LocalMessage,
  ) {
    super(message);
    this.name = 'MemoryPathError';
  }
}

// C0, DEL, C1, line/paragraph separators, bidi and zero-width controls, BOM: characters that are
// invisible or reorder text, so a path holding one does not read as what it is.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/u;
// Characters that look like `/`, `\` or `.` (or fold to them under NFKC): a segment such as `‥` or
// `a／b` reads as traversal or nesting to a person or a later layer while meaning neither.
const LOOK_ALIKE = /[\u2024\u2025\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\ufe52\ufe68\uff0e\uff0f\uff3c]/u;
const LONE_SURROGATE = /[\ud800-\udfff]/u;
// `%2e`, and the non-standard `%u002e` some servers decode.
const PERCENT_ESCAPE = /%(?:[0-9a-fA-F]{2}|[uU][0-9a-fA-F]{4})/;

function codePoint(ch: string): string {
  return 'U+' + (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Checks a memory path and returns its canonical form (NFC, no trailing slash),
 * or throws `MemoryPathError` saying what is wrong and how to write it instead.
 */
export function validateMemoryPath(input: unknown): string {
  if (typeof input !== 'string') {
    throw new MemoryPathError(`The path must be a string starting with ${MEMORY_ROOT}, got ${input === null ? 'null' : typeof input}.`, m('errors:path.notAString', { root: MEMORY_ROOT, got: input === null ? 'null' : typeof input }));
  }
  if (LONE_SURROGATE.test(input)) {
    throw new MemoryPathError('The path contains an unpaired surrogate (malformed Unicode); send it as valid UTF-8 text.', m('errors:path.loneSurrogate'));
  }
  const p = input.normalize('NFC');
  if (p.length === 0) throw new MemoryPathError(`The path is empty; memory paths start with ${MEMORY_ROOT}.`, m('errors:path.empty', { root: MEMORY_ROOT }));
  // Bytes, not characters: file systems count bytes (or UTF-16 units, never more than the bytes).
  const bytes = Buffer.byteLength(p, 'utf8');
  if (bytes > MAX_PATH_BYTES) {
    throw new MemoryPathError(`The path is too long (${bytes} bytes); memory paths may have at most ${MAX_PATH_BYTES} bytes. Use shorter names or fewer folders.`, m('errors:path.tooLong', { bytes, max: MAX_PATH_BYTES }));
  }
  const invisible = INVISIBLE.exec(p);
  if (invisible) {
    throw new MemoryPathError(
      `The path contains a control or invisible character (${codePoint(invisible[0])}), which memory paths may not contain.`,
      m('errors:path.invisible', { char: codePoint(invisible[0]) }),
    );
  }
  if (p !== MEMORY_ROOT && !p.startsWith(MEMORY_ROOT + '/')) {
    if (p.startsWith(MEMORY_ROOT)) {
      throw new MemoryPathError(`Path must be ${MEMORY_ROOT} or start with ${MEMORY_ROOT}/; a name such as ${MEMORY_ROOT}X is outside the memory directory.`, m('errors:path.rootPrefix', { root: MEMORY_ROOT }));
    }
    throw new MemoryPathError(`Path must start with ${MEMORY_ROOT}; the path given is outside the memory directory. Memory paths look like ${MEMORY_ROOT}/notes.md.`, m('errors:path.outside', { root: MEMORY_ROOT }));
  }
  if (p.includes('\\')) {
    throw new MemoryPathError(`The path contains a backslash; memory paths use / between names and may not contain \\.`, m('errors:path.backslash'));
  }
  const escape = PERCENT_ESCAPE.exec(p);
  if (escape) {
    throw new MemoryPathError(
      `The path contains the percent-encoded sequence ${escape[0]}; memory paths are plain text, not URL-encoded.`,
      m('errors:path.percent', { sequence: escape[0] }),
    );
  }
  const lookAlike = LOOK_ALIKE.exec(p);
  if (lookAlike) {
    throw new MemoryPathError(
      `The path contains "${lookAlike[0]}" (${codePoint(lookAlike[0])}), which looks like / \\ or . but is not; use plain ASCII in paths.`,
      m('errors:path.lookAlike', { char: lookAlike[0], code: codePoint(lookAlike[0]) }),
    );
  }
  // One trailing slash is a common way to name a directory; it is dropped, not an empty name.
  const canonical = p.length > MEMORY_ROOT.length + 1 && p.endsWith('/') ? p.slice(0, -1) : p === MEMORY_ROOT + '/' ? MEMORY_ROOT : p;
  if (canonical === MEMORY_ROOT) return canonical;
  const segments = canonical.slice(MEMORY_ROOT.length + 1).split('/');
  if (segments.length > MAX_DEPTH) {
    throw new MemoryPathError(`The path is too deep (${segments.length} names below ${MEMORY_ROOT}); at most ${MAX_DEPTH} are allowed. Use fewer folders.`, m('errors:path.tooDeep', { depth: segments.length, root: MEMORY_ROOT, max: MAX_DEPTH }));
  }
  for (const segment of segments) {
    checkSegment(segment);
  }
  return canonical;
}

function checkSegment(segment: string): void {
  if (segment === '') {
    throw new MemoryPathError(`The path contains an empty name (//); write each directory name once, separated by a single /.`, m('errors:path.emptyName'));
  }
  if (segment === '..') {
    throw new MemoryPathError('Path would escape /memories directory: it contains a ".." segment. Write the full path from /memories without "..".', m('errors:path.dotDot', { root: MEMORY_ROOT }));
  }
  if (segment === '.') {
    throw new MemoryPathError(`The path contains a "." segment; write the path without it.`, m('errors:path.dot'));
  }
  if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
    throw new MemoryPathError(`The path has a name longer than ${MAX_SEGMENT_BYTES} bytes; use shorter file and directory names.`, m('errors:path.nameTooLong', { max: MAX_SEGMENT_BYTES }));
  }
  // HFS+ stores names decomposed (NFD) and NTFS counts UTF-16 units: some names grow past 255 only there.
  if (segment.normalize('NFD').length > MAX_SEGMENT_BYTES) {
    throw new MemoryPathError(`The path has a name longer than ${MAX_SEGMENT_BYTES} characters once accents are stored separately, as macOS does; use shorter file and directory names.`, m('errors:path.nameTooLongNfd', { max: MAX_SEGMENT_BYTES }));
  }
  if (segment.trim() === '') {
    throw new MemoryPathError(`The path contains a name made only of spaces; give every file and directory a visible name.`, m('errors:path.blankName'));
  }
}

/** True when `p` is `dir` or lies below it (both canonical). */
export function isWithin(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir + '/');
}

/** The canonical parent directory of a canonical path below the root. */
export function parentPath(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? MEMORY_ROOT : p.slice(0, i);
}

/** Why a move is refused, for the window and the CLI: the path limits a path inside it would break there. */
function movedRefusal(from: string, to: string, inner: LocalMessage | undefined): LocalMessage {
  if (inner?.key === 'errors:path.tooLong') return m('errors:path.moveTooLong', { from, to, ...inner.params });
  if (inner?.key === 'errors:path.tooDeep') return m('errors:path.moveTooDeep', { from, to, ...inner.params });
  return m('errors:path.cannotMove', { from, to, reason: inner ?? m('errors:path.invalid') });
}

/**
 * Checks that moving the canonical directory `from` to `to` keeps every path
 * below it within the limits above (a folder moved deeper can push its
 * contents past them). `paths` are the canonical paths currently below `from`;
 * throws `MemoryPathError` naming the move, never the offending inner path.
 */
export function validateMovedPaths(from: string, to: string, paths: Iterable<string>): void {
  for (const p of paths) {
    if (!isWithin(p, from)) continue;
    try {
      validateMemoryPath(to + p.slice(from.length));
    } catch (e) {
      if (!(e instanceof MemoryPathError)) throw e;
      throw new MemoryPathError(`Cannot move ${from} to ${to}: ${e.message.replace(/^The path /, 'a path inside it would be ')}`, movedRefusal(from, to, e.local));
    }
  }
}
