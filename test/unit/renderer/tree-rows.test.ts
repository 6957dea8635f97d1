/** The memory tree's row model: closed folders by default, the path to the selection open, type-ahead. */
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../../electron/shared/ipc-values';
import { ancestorsOf, expandedFor, indexEntries, typeAheadAfter, typeAheadMatch, TYPE_AHEAD_RESET_MS, visibleRows } from '../../../renderer/features/memories/tree-rows';

const file = (path: string): Entry => ({ kind: 'file', path, size: 10, created: 0, modified: 0, version: 1 });
const dir = (path: string): Entry => ({ kind: 'dir', path, created: 0, modified: 0 });

// Listed out of order on purpose: the model sorts each folder by name.
const ENTRIES: Entry[] = [
  file('/memories/z.md'),
  dir('/memories/notes'),
  file('/memories/notes/c.md'),
  dir('/memories/notes/deep'),
  file('/memories/notes/deep/x.md'),
  file('/memories/notes/b.md'),
  file('/memories/a.md'),
  dir('/memories/Archive'),
  file('/memories/Archive/old.md'),
];
const paths = (rows: { entry: Entry }[]) => rows.map((r) => r.entry.path);

describe('visible rows', () => {
  it('start with every folder closed: only the top level shows, sorted by name', () => {
    const rows = visibleRows(indexEntries(ENTRIES), new Set());
    expect(paths(rows)).toEqual(['/memories/Archive', '/memories/a.md', '/memories/notes', '/memories/z.md']);
    expect(rows.map((r) => [r.level, r.posinset, r.setsize])).toEqual([
      [1, 1, 4],
      [1, 2, 4],
      [1, 3, 4],
      [1, 4, 4],
    ]);
  });

  it('open the folders on the path to the selected memory, and only those', () => {
    const expanded = expandedFor(new Set(), '/memories/notes/deep/x.md', false);
    expect([...expanded].sort()).toEqual(['/memories/notes', '/memories/notes/deep']);
    const rows = visibleRows(indexEntries(ENTRIES), expanded);
    expect(paths(rows)).toEqual(['/memories/Archive', '/memories/a.md', '/memories/notes', '/memories/notes/b.md', '/memories/notes/c.md', '/memories/notes/deep', '/memories/notes/deep/x.md', '/memories/z.md']);
    const x = rows.find((r) => r.entry.path === '/memories/notes/deep/x.md')!;
    expect([x.level, x.posinset, x.setsize]).toEqual([3, 1, 1]);
    const deep = rows.find((r) => r.entry.path === '/memories/notes/deep')!;
    expect([deep.level, deep.posinset, deep.setsize]).toEqual([2, 3, 3]);
  });

  it('open a selected folder itself too, and leave the set as it was when the path is already open', () => {
    const once = expandedFor(new Set(), '/memories/notes/deep', true);
    expect([...once].sort()).toEqual(['/memories/notes', '/memories/notes/deep']);
    expect(expandedFor(once, '/memories/notes/deep/x.md', false)).toBe(once);
    expect(expandedFor(once, '/memories/a.md', false)).toBe(once);
  });

  it('hide what is under a closed folder even when a folder inside it is open', () => {
    const rows = visibleRows(indexEntries(ENTRIES), new Set(['/memories/notes/deep']));
    expect(paths(rows)).not.toContain('/memories/notes/deep/x.md');
    expect(paths(rows)).toHaveLength(4);
  });

  it('hold 10,000 memories: closed, only the top level; all open, every entry once in depth-first name order', () => {
    const entries: Entry[] = [];
    for (let a = 0; a < 20; a++) {
      entries.push(dir(`/memories/area-${a}`));
      for (let t = 0; t < 20; t++) {
        entries.push(dir(`/memories/area-${a}/topic-${t}`));
        for (let n = 0; n < 25; n++) entries.push(file(`/memories/area-${a}/topic-${t}/note-${n}.md`));
      }
    }
    entries.reverse();
    expect(entries.filter((e) => e.kind === 'file')).toHaveLength(10_000);
    const index = indexEntries(entries);
    expect(visibleRows(index, new Set())).toHaveLength(20);
    const all = visibleRows(index, new Set(entries.filter((e) => e.kind === 'dir').map((e) => e.path)));
    expect(all).toHaveLength(entries.length);
    // Depth-first by name is the order of the paths compared segment by segment.
    const bySegments = [...entries].map((e) => e.path.split('/')).sort((x, y) => {
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return x.length - y.length;
    });
    expect(paths(all)).toEqual(bySegments.map((s) => s.join('/')));
  });

  it('name the ancestors of a path outermost first, without /memories itself', () => {
    expect(ancestorsOf('/memories/a/b/c.md')).toEqual(['/memories/a', '/memories/a/b']);
    expect(ancestorsOf('/memories/top.md')).toEqual([]);
  });
});

describe('type-ahead', () => {
  const rows = ['Archive', 'a.md', 'notes', 'notebook.md', 'Plan.md', 'plants', 'z.md'].map((name) => ({ name }));

  it('a letter goes to the next name starting with it, ignoring case and wrapping around', () => {
    expect(typeAheadMatch(rows, 0, 'a')).toBe(1);
    expect(typeAheadMatch(rows, 1, 'a')).toBe(0);
    expect(typeAheadMatch(rows, 6, 'N')).toBe(2);
    expect(typeAheadMatch(rows, 2, 'n')).toBe(3);
  });

  it('a word typed quickly stays on the focused name while it still matches, else moves on', () => {
    expect(typeAheadMatch(rows, 2, 'no')).toBe(2);
    expect(typeAheadMatch(rows, 2, 'noteb')).toBe(3);
    expect(typeAheadMatch(rows, 0, 'pla')).toBe(4);
    expect(typeAheadMatch(rows, 4, 'plan')).toBe(4);
    expect(typeAheadMatch(rows, 4, 'plant')).toBe(5);
  });

  it('a repeated letter no name starts with cycles through that letter; an unknown word goes nowhere', () => {
    expect(typeAheadMatch(rows, 4, 'pp')).toBe(5);
    expect(typeAheadMatch(rows, 5, 'ppp')).toBe(4);
    expect(typeAheadMatch(rows, 0, 'qx')).toBeUndefined();
    expect(typeAheadMatch([], 0, 'a')).toBeUndefined();
  });

  it('the word grows while keys come quickly and starts again after a pause', () => {
    let word = typeAheadAfter(undefined, 'n', 1000);
    word = typeAheadAfter(word, 'o', 1000 + TYPE_AHEAD_RESET_MS - 1);
    expect(word.text).toBe('no');
    word = typeAheadAfter(word, 'z', word.at + TYPE_AHEAD_RESET_MS + 1);
    expect(word.text).toBe('z');
  });
});
