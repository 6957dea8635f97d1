/**
 * A corpus of hostile memory paths: traversal in every encoding we know of,
 * host paths, control characters, look-alike Unicode, overlong names, and
 * values that are not strings at all.
 */

const DOTS = ['..', '%2e%2e', '%2E%2E', '%2e.', '.%2e', '%252e%252e', '%25252e%25252e', '%c0%ae%c0%ae', '%u002e%u002e', '．．', '‥', '․․', '.\u200b.', '..\u0000'];
const SEPARATORS = ['/', '%2f', '%2F', '%252f', '\\', '%5c', '%5C', '%255c', '／', '∕', '⁄', '＼', '%c0%af', '%e0%80%af'];

/** Paths that must each be refused with a clear error. `watched` is a host dir the tests watch for writes. */
export function hostilePaths(watched: string): unknown[] {
  const corpus: unknown[] = [];
  for (const dot of DOTS) {
    for (const sep of SEPARATORS) corpus.push(`/memories/${dot}${sep}${dot}${sep}etc${sep}passwd`);
    corpus.push(`${dot}/etc/passwd`, `/memories/notes/${dot}`, `/memories/${dot}`);
  }
  corpus.push(
    // Host paths and other roots.
    '/etc/passwd', '/etc/shadow', '/root/.ssh/id_rsa', '/tmp/mnemo-escape.md', '/', '//', '///memories', '/proc/self/environ',
    '/dev/null', 'C:\\Windows\\system32\\config', 'C:/Windows/win.ini', '\\\\server\\share\\x', '\\\\?\\C:\\x', 'file:///etc/passwd',
    'file:///memories/x', '~/memories/x', '~root', `${watched}/escape.md`, `${watched}/../escape.md`, `/memories/../${watched}/escape.md`,
    // Near misses of the root.
    '/memoriesX', '/memoriesX/a.md', '/memories-old/x', '/memories.bak/x', '/Memories/x', '/MEMORIES', ' /memories', '/memories ',
    'memories/x', 'memories', '', ' ', '/memories/ ', '/memories/ /x', '/memories/x/ ', '/memories/\t',
    // Dot segments and empty segments.
    '/memories/.', '/memories/..', '/memories/./x', '/memories/x/.', '/memories/x/..', '/memories/x/../..', '/memories/x/./y',
    '/memories//x', '/memories/x//y', '/memories///', '/memories/x//', '/memories//',
    // Percent-encoding of harmless-looking characters is refused too: there is one spelling per memory.
    '/memories/%2e', '/memories/a%00b', '/memories/%2fetc', '/memories/a%20b.md', '/memories/%41.md', '/memories/%u0041.md',
    // Look-alikes of / \ and . in names.
    '/memories/a／b', '/memories/․․/x', '/memories/‥', '/memories/．．／x', '/memories／x', '／memories/x', '/memories/a∕b',
    '/memories/a⁄b', '/memories/a＼b', '/memories/﹒﹒/x', '/memories/a⧸b', '/memories/a⧹b', '/memories/a╱b', '/memories/a∖b',
    // Overlong paths and names.
    '/memories/' + 'a'.repeat(1015), '/memories/' + 'a/'.repeat(2000) + 'x', '/memories/' + 'n'.repeat(256), '/memories/' + '€'.repeat(86),
    '/memories/' + '🙂'.repeat(64), '/memories/ok/' + 'é'.repeat(128) + '/x.md',
    // Malformed Unicode.
    '/memories/\ud800x', '/memories/x\udfff',
    // Not strings.
    null, undefined, 42, true, [], {}, ['/memories/x'], { path: '/memories/x' },
  );
  for (let c = 0; c <= 0x1f; c++) corpus.push(`/memories/a${String.fromCharCode(c)}b.md`);
  for (const c of [0x7f, 0x80, 0x85, 0x9f, 0xad, 0x200b, 0x200d, 0x200e, 0x202e, 0x2028, 0x2029, 0x2066, 0xfeff]) {
    corpus.push(`/memories/a${String.fromCharCode(c)}b.md`);
  }
  return corpus;
}

/** Paths that look unusual but are fine, with the canonical form each must become. */
export const ACCEPTED_PATHS: ReadonlyArray<[string, string]> = [
  ['/memories', '/memories'],
  ['/memories/', '/memories'],
  ['/memories/a.md', '/memories/a.md'],
  ['/memories/notes/', '/memories/notes'],
  ['/memories/.hidden', '/memories/.hidden'],
  ['/memories/...', '/memories/...'],
  ['/memories/a..b.md', '/memories/a..b.md'],
  ['/memories/100%.md', '/memories/100%.md'],
  ['/memories/50%off.md', '/memories/50%off.md'],
  ['/memories/a b.md', '/memories/a b.md'],
  ['/memories/日本語/メモ.md', '/memories/日本語/メモ.md'],
  ['/memories/cafe\u0301.md', '/memories/caf\u00e9.md'],
  ['/memories/' + 'n'.repeat(255), '/memories/' + 'n'.repeat(255)],
  ['/memories/' + 'a/'.repeat(31) + 'xy', '/memories/' + 'a/'.repeat(31) + 'xy'],
];
