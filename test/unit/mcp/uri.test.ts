/** Memory resource URIs: one spelling per memory, and nothing else parses. */
import { describe, expect, it } from 'vitest';
import { memoryUri, mimeTypeOf, parseMemoryUri } from '../../../electron/core/mcp/uri';
import { MemoryPathError } from '../../../electron/core/memory/paths';

describe('memory resource URIs', () => {
  it('round-trip every kind of valid name, each name percent-encoded', () => {
    const paths = ['/memories/notes.md', '/memories/a b/c d.txt', '/memories/café/日本語.md', '/memories/100%.md', '/memories/q?#&=+.md', "/memories/it's (1).md", '/memories/🙂/x'];
    for (const p of paths) expect(parseMemoryUri(memoryUri(p))).toBe(p);
    expect(memoryUri('/memories/a b/café.md')).toBe('mnemo://memories/a%20b/caf%C3%A9.md');
    expect(memoryUri('/memories/100%.md')).toBe('mnemo://memories/100%25.md');
  });

  const refused: Record<string, string> = {
    'a dot-dot segment': 'mnemo://memories/../etc/passwd',
    'an encoded dot-dot': 'mnemo://memories/%2e%2e/x.md',
    'an upper-case encoded dot-dot': 'mnemo://memories/%2E%2E/x.md',
    'a dot segment': 'mnemo://memories/./x.md',
    'an encoded slash inside a name': 'mnemo://memories/a%2Fb.md',
    'an encoded backslash': 'mnemo://memories/..%5Cx',
    'an encoded NUL': 'mnemo://memories/a%00b.md',
    'a double-encoded dot-dot': 'mnemo://memories/%252e%252e/x.md',
    'a malformed escape': 'mnemo://memories/%zz.md',
    'a truncated UTF-8 escape': 'mnemo://memories/%C3.md',
    'lower-case hex': 'mnemo://memories/caf%c3%a9.md',
    'a needless escape': 'mnemo://memories/%61.md',
    'an empty name': 'mnemo://memories//a.md',
    'a trailing slash': 'mnemo://memories/a/',
    'the root itself': 'mnemo://memories',
    'a look-alike root': 'mnemo://memoriesX/a.md',
    'another scheme': 'file:///memories/a.md',
    'another host': 'mnemo://other/a.md',
    'a query': 'mnemo://memories/a.md?x=1',
    'a fragment': 'mnemo://memories/a.md#top',
    'a decomposed accent (not NFC)': 'mnemo://memories/cafe%CC%81.md',
    'a host path': 'mnemo://memories/%2Fetc%2Fpasswd',
    'an overlong URI': `mnemo://memories/${'a'.repeat(5000)}`,
  };
  for (const [what, uri] of Object.entries(refused)) {
    it(`refuse ${what}`, () => {
      expect(() => parseMemoryUri(uri)).toThrow(MemoryPathError);
    });
  }

  it('name no host path in a refusal', () => {
    try {
      parseMemoryUri('mnemo://memories/%2e%2e/%2e%2e/home/user/.ssh/id_rsa');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toMatch(/home|ssh|id_rsa/);
    }
  });

  it('serve .md as Markdown and anything else as plain text', () => {
    expect(['/memories/a.md', '/memories/A.MD', '/memories/a.txt', '/memories/md', '/memories/a.md.bak'].map(mimeTypeOf)).toEqual(['text/markdown', 'text/markdown', 'text/plain', 'text/plain', 'text/plain']);
  });
});
