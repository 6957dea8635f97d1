/**
 * Memory files as MCP resources: `mnemo://memories/<path>`, each name
 * percent-encoded. A URI is parsed back strictly: only the one canonical
 * spelling of a valid memory path is accepted, so a client cannot reach a path
 * through an encoding (`%2e%2e`, `%2F`, double encoding, a `..` that a URL
 * parser would fold away) that the memory tool itself would refuse.
 */
import { MEMORY_ROOT, MemoryPathError, validateMemoryPath } from '../memory/paths';

/** The URI of `/memories` itself; every memory's URI starts with it and a `/`. */
export const MEMORY_URI_ROOT = 'mnemo://memories';

/** The longest URI looked at: a memory path is at most 1,024 bytes, and percent-encoding triples a byte at most. */
const MAX_URI_CHARS = 3 * 1024 + MEMORY_URI_ROOT.length;

/** The resource URI of a memory path (already valid: as the vault lists it). */
export function memoryUri(path: string): string {
  if (path === MEMORY_ROOT) return MEMORY_URI_ROOT;
  return MEMORY_URI_ROOT + path.slice(MEMORY_ROOT.length).split('/').map(encodeURIComponent).join('/');
}

/**
 * The memory path a resource URI names, or a MemoryPathError saying why it
 * names none. Accepted: exactly what `memoryUri` makes for a valid path.
 */
export function parseMemoryUri(uri: string): string {
  const refuse = (why: string) => new MemoryPathError(`${why} Memory resources look like ${MEMORY_URI_ROOT}/notes.md; list them with resources/list.`);
  if (uri.length > MAX_URI_CHARS) throw refuse('The resource URI is too long.');
  if (!uri.startsWith(`${MEMORY_URI_ROOT}/`)) throw refuse('That is not a Mnemo memory resource.');
  let path: string;
  try {
    path = MEMORY_ROOT + uri.slice(MEMORY_URI_ROOT.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    throw refuse('The resource URI holds a malformed percent-encoding.');
  }
  // Refuses `..`, `.`, empty names, control characters, a `%` left after decoding (double encoding) and the rest.
  const valid = validateMemoryPath(path);
  // One spelling only: `%2F` inside a name, needless escapes, lower-case hex or a decomposed accent are not it.
  if (memoryUri(valid) !== uri) throw refuse('The resource URI is not written the way Mnemo writes it.');
  return valid;
}

/** The MIME type a memory is served with: Markdown for `.md`, plain text for anything else. */
export function mimeTypeOf(path: string): 'text/markdown' | 'text/plain' {
  return /\.md$/i.test(path) ? 'text/markdown' : 'text/plain';
}
