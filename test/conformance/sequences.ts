/**
 * Hand-written sequences of memory-tool calls that exercise every command and
 * every error the reference gets right; shared by the comparison with the
 * SDK's reference (sequences.test.ts) and with `mnemo mcp` (mcp.test.ts).
 */
const create = (path: string, file_text: string) => ({ command: 'create', path, file_text });
export const view = (path: string, view_range?: number[]) => (view_range ? { command: 'view', path, view_range } : { command: 'view', path });
const replace = (path: string, old_str: string, new_str?: string) =>
  new_str === undefined ? { command: 'str_replace', path, old_str } : { command: 'str_replace', path, old_str, new_str };
const insert = (path: string, insert_line: number, insert_text: string) => ({ command: 'insert', path, insert_line, insert_text });
const del = (path: string) => ({ command: 'delete', path });
const rename = (old_path: string, new_path: string) => ({ command: 'rename', old_path, new_path });

export const SEQUENCES: Record<string, unknown[]> = {
  'view lists an empty memory directory and reports a missing path': [view('/memories'), view('/memories/nothing.md'), view('/memories/no/such/dir')],
  'create writes files and nested directories and refuses to overwrite': [
    create('/memories/prefs.md', 'likes tea\n'),
    create('/memories/projects/mnemo/notes.md', 'line one\nline two'),
    create('/memories/prefs.md', 'again'),
    create('/memories/projects', 'a directory is already there'),
    create('/memories', 'the root'),
    create('/memories/empty.md', ''),
    view('/memories'),
    view('/memories/projects'),
    view('/memories/empty.md'),
  ],
  'view shows numbered lines, ranges and -1 to the end': [
    create('/memories/f.md', Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'),
    view('/memories/f.md'),
    view('/memories/f.md', [3, 5]),
    view('/memories/f.md', [10, -1]),
    view('/memories/f.md', [1, 1]),
    view('/memories/f.md', [13, 13]),
    view('/memories/f.md', [1, 13]),
  ],
  'the listing goes two levels deep, leaves out hidden items and node_modules, and sorts each level': [
    create('/memories/a/x.md', 'x'),
    create('/memories/a-b.md', 'ab'),
    create('/memories/a/deep/deeper/gone.md', 'three levels down'),
    create('/memories/.hidden/secret.md', 'hidden'),
    create('/memories/.profile', 'hidden file'),
    create('/memories/node_modules/pkg/index.md', 'modules'),
    create('/memories/B.md', 'upper case sorts first'),
    create('/memories/é.md', 'non-ASCII sorts last'),
    create('/memories/a/.env', 'hidden below'),
    view('/memories'),
    view('/memories/a'),
    view('/memories/a/deep'),
    view('/memories/.hidden'),
    view('/memories/.hidden/secret.md'),
    view('/memories/node_modules'),
  ],
  'sizes are printed as the reference prints them': [
    create('/memories/s/2000.md', 'x'.repeat(2000)),
    create('/memories/s/5632.md', 'y'.repeat(5632)),
    create('/memories/s/1024.md', 'z'.repeat(1024)),
    create('/memories/s/1023.md', 'w'.repeat(1023)),
    create('/memories/s/700000.md', 'v'.repeat(700_000)),
    create('/memories/s/mib.md', 'u'.repeat(1024 * 1024)),
    create('/memories/s/unicode.md', 'café 日本語 🙂'),
    view('/memories/s'),
  ],
  'a file of more than 999,999 lines is refused with the reference message': [
    create('/memories/huge.md', '\n'.repeat(1_000_000)),
    view('/memories/huge.md'),
    view('/memories/huge.md', [1, 2]),
  ],
  'str_replace edits a unique match and shows the snippet around it': [
    create('/memories/n.md', 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n'),
    replace('/memories/n.md', 'four', 'FOUR'),
    replace('/memories/n.md', 'one', '1'),
    replace('/memories/n.md', 'seven', 'seven\neight\nnine'),
    replace('/memories/n.md', 'FOUR', ''),
    replace('/memories/n.md', 'two', '$& and $1 stay literal'),
    view('/memories/n.md'),
  ],
  'str_replace reports a missing match, several matches, a missing file and a directory': [
    create('/memories/n.md', 'apple pie\nbanana\napple tart\n'),
    replace('/memories/n.md', 'cherry', 'x'),
    replace('/memories/n.md', 'apple', 'pear'),
    replace('/memories/nope.md', 'a', 'b'),
    replace('/memories', 'a', 'b'),
    create('/memories/d/f.md', 'f'),
    replace('/memories/d', 'a', 'b'),
    view('/memories/n.md'),
  ],
  'insert adds text at the start, middle and end, and drops one trailing newline': [
    create('/memories/i.md', 'a\nb\nc'),
    insert('/memories/i.md', 0, 'start\n'),
    insert('/memories/i.md', 2, 'middle'),
    insert('/memories/i.md', 5, 'end\n\n'),
    insert('/memories/i.md', 3, 'two\nlines'),
    view('/memories/i.md'),
    create('/memories/empty.md', ''),
    insert('/memories/empty.md', 0, 'first'),
    insert('/memories/empty.md', 2, 'after'),
    view('/memories/empty.md'),
  ],
  'insert refuses a line outside the file, a missing file and a directory': [
    create('/memories/i.md', 'a\nb\n'),
    insert('/memories/i.md', 4, 'x'),
    insert('/memories/i.md', -1, 'x'),
    insert('/memories/missing.md', 0, 'x'),
    insert('/memories', 0, 'x'),
    view('/memories/i.md'),
  ],
  'delete removes files and whole directories and refuses the root': [
    create('/memories/keep.md', 'k'),
    create('/memories/dir/a.md', 'a'),
    create('/memories/dir/sub/b.md', 'b'),
    del('/memories/dir/a.md'),
    view('/memories'),
    del('/memories/dir'),
    del('/memories/dir'),
    del('/memories/never.md'),
    del('/memories'),
    view('/memories'),
  ],
  'rename moves files and directories, creates parents and never overwrites': [
    create('/memories/a.md', 'a'),
    create('/memories/b.md', 'b'),
    create('/memories/d/c.md', 'c'),
    rename('/memories/a.md', '/memories/archive/2024/a.md'),
    rename('/memories/b.md', '/memories/archive/2024/a.md'),
    rename('/memories/b.md', '/memories/d'),
    rename('/memories/b.md', '/memories/b.md'),
    rename('/memories/d', '/memories/e'),
    rename('/memories/missing.md', '/memories/elsewhere.md'),
    rename('/memories', '/memories/x'),
    rename('/memories/e', '/memories'),
    view('/memories'),
    view('/memories/archive/2024/a.md'),
  ],
};

