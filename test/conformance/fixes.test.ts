/**
 * Where the reference is wrong we are right on purpose (DESIGN.md §4). Each
 * test pins our exact answer and, where it helps, shows what the reference does.
 */
import { describe, expect, it } from 'vitest';
import { sharedFixture } from '../unit/fixture';
import { openPair } from './harness';
import { snapshotEntries } from '../unit/memory/helpers';

const pair = sharedFixture(openPair, (f) => f.reset());

const ok = (content: string) => ({ content, is_error: false });
const err = (message: string) => ({ content: `Error: ${message}`, is_error: true });

async function both(input: unknown) {
  return { reference: await pair().runReference(input), ours: await pair().runOurs(input) };
}
async function seed(path: string, text: string): Promise<void> {
  const { reference, ours } = await both({ command: 'create', path, file_text: text });
  expect(reference.is_error || ours.is_error).toBe(false);
}
const read = (path: string) => pair().ours.vault.memory.readFile(path);

describe('str_replace', () => {
  it('replaces a multi-line old_str that the reference can never find', async () => {
    await seed('/memories/m.md', 'a\nb\nc\nd\n');
    const { reference, ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: 'b\nc', new_str: 'B\nC' });
    expect(reference.is_error).toBe(true);
    expect(ours).toEqual(ok('The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\ta\n     2\tB\n     3\tC\n     4\td'));
    expect(await read('/memories/m.md')).toBe('a\nB\nC\nd\n');
  });

  it('counts occurrences over the whole file, so two on one line are ambiguous and nothing changes', async () => {
    await seed('/memories/m.md', 'tea and tea\ncoffee\n');
    const { reference, ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: 'tea', new_str: 'milk' });
    expect(reference.is_error).toBe(false);
    expect(ours).toEqual(err('No replacement was performed. Multiple occurrences of old_str `tea` in lines: 1. Please ensure it is unique'));
    expect(await read('/memories/m.md')).toBe('tea and tea\ncoffee\n');
  });

  it('treats overlapping matches as ambiguous', async () => {
    await seed('/memories/m.md', 'aaa\n');
    const { ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: 'aa', new_str: 'b' });
    expect(ours).toEqual(err('No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1. Please ensure it is unique'));
  });

  it('lists every line of a match that spans lines only once per line it starts on', async () => {
    await seed('/memories/m.md', 'x\ny\nx\ny\n');
    const { ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: 'x\ny', new_str: 'z' });
    expect(ours).toEqual(err('No replacement was performed. Multiple occurrences of old_str `x\ny` in lines: 1, 3. Please ensure it is unique'));
  });

  it('takes a missing new_str as the empty string and deletes the match', async () => {
    await seed('/memories/m.md', 'keep remove keep');
    const { ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: ' remove' });
    expect(ours).toEqual(ok('The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tkeep keep'));
    expect(await read('/memories/m.md')).toBe('keep keep');
  });

  it('refuses an empty old_str instead of matching everywhere', async () => {
    await seed('/memories/m.md', 'one line');
    const { reference, ours } = await both({ command: 'str_replace', path: '/memories/m.md', old_str: '', new_str: 'X' });
    expect(reference.is_error).toBe(false);
    expect(ours).toEqual(err('No replacement was performed: old_str is empty. Give the exact text to replace in /memories/m.md; use insert to add new lines.'));
    expect(await read('/memories/m.md')).toBe('one line');
  });
});

describe('view_range', () => {
  const viewRange = (view_range: unknown) => both({ command: 'view', path: '/memories/v.md', view_range });
  const FILE = 'l1\nl2\nl3\nl4\nl5';

  it.each([
    [[2, 1], 'Invalid `view_range`: [2, 1]. Its second element `1` should be larger or equal than its first `2` (or -1 for the end of the file)'],
    [[0, 2], 'Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 5]'],
    [[6, -1], 'Invalid `view_range`: [6, -1]. Its first element `6` should be within the range of lines of the file: [1, 5]'],
    [[2, 9], 'Invalid `view_range`: [2, 9]. Its second element `9` should not be larger than the number of lines in the file: `5` (use -1 for the end of the file)'],
    [[3, -2], 'Invalid `view_range`: [3, -2]. Its second element `-2` should be larger or equal than its first `3` (or -1 for the end of the file)'],
    [[3], 'Invalid `view_range`. It should be a list of two integers: [start_line, end_line], with -1 as end_line for the end of the file.'],
    [[1, 2, 3], 'Invalid `view_range`. It should be a list of two integers: [start_line, end_line], with -1 as end_line for the end of the file.'],
    [[1.5, 2], 'Invalid `view_range`. It should be a list of two integers: [start_line, end_line], with -1 as end_line for the end of the file.'],
  ])('%j is a clear error, not an empty or silently clamped body', async (range, message) => {
    await seed('/memories/v.md', FILE);
    const { ours } = await viewRange(range);
    expect(ours).toEqual(err(message));
  });

  it('the reference answers a reversed range with an empty body, which is what we fix', async () => {
    await seed('/memories/v.md', FILE);
    const { reference } = await viewRange([4, 2]);
    expect(reference).toEqual(ok("Here's the content of /memories/v.md with line numbers:\n"));
  });

  it('a range that is not a list of numbers is an input error', async () => {
    await seed('/memories/v.md', FILE);
    const { ours } = await viewRange('1-3');
    expect(ours).toEqual(err("Invalid input for the memory tool's view command: `view_range` must be a list of two integers."));
  });
});

describe('paths', () => {
  it.each(([
    ['/memoriesX/a.md', 'Path must be /memories or start with /memories/; a name such as /memoriesX is outside the memory directory.'],
    ['/memories-old', 'Path must be /memories or start with /memories/; a name such as /memoriesX is outside the memory directory.'],
    ['/etc/passwd', 'Path must start with /memories; the path given is outside the memory directory. Memory paths look like /memories/notes.md.'],
    ['/memories/a/../b.md', 'Path would escape /memories directory: it contains a ".." segment. Write the full path from /memories without "..".'],
    ['/memories/./b.md', 'The path contains a "." segment; write the path without it.'],
    ['/memories/a\\b.md', 'The path contains a backslash; memory paths use / between names and may not contain \\.'],
    ['/memories/a\u0000.md', 'The path contains a control or invisible character (U+0000), which memory paths may not contain.'],
    ['/memories/a\nb.md', 'The path contains a control or invisible character (U+000A), which memory paths may not contain.'],
    ['/memories/%2e%2e%2fetc', 'The path contains the percent-encoded sequence %2e; memory paths are plain text, not URL-encoded.'],
    ['/memories/%252e%252e%252f', 'The path contains the percent-encoded sequence %25; memory paths are plain text, not URL-encoded.'],
    ['/memories//a.md', 'The path contains an empty name (//); write each directory name once, separated by a single /.'],
    ['/memories/' + 'a'.repeat(1020), 'The path is too long (1030 bytes); memory paths may have at most 1024 bytes. Use shorter names or fewer folders.'],
    ['/memories/' + 'é'.repeat(128), 'The path has a name longer than 255 bytes; use shorter file and directory names.'],
    ['/memories/a\uff0fb.md', 'The path contains "\uff0f" (U+FF0F), which looks like / \\ or . but is not; use plain ASCII in paths.'],
  ] as Array<[string, string]>).map(([path, message]) => [JSON.stringify(path).slice(0, 48), path, message] as [string, string, string]))('%s is refused with a clear message and nothing is written', async (_label, path, message) => {
    const before = snapshotEntries(pair().ours.vault);
    const { ours } = await both({ command: 'create', path, file_text: 'x' });
    expect(ours).toEqual(err(message));
    expect(snapshotEntries(pair().ours.vault)).toEqual(before);
  });

  it('a refused path is never echoed, where the reference repeats whatever host path it was given', async () => {
    const { reference, ours } = await both({ command: 'view', path: `${pair().referenceBase}/secret.md` });
    expect(reference.content).toContain(pair().referenceBase);
    expect(ours).toEqual(err('Path must start with /memories; the path given is outside the memory directory. Memory paths look like /memories/notes.md.'));
    const traversal = await both({ command: 'view', path: `/memories/..${pair().referenceBase}` });
    expect(traversal.reference.content).toContain(pair().referenceBase);
    expect(traversal.ours.content).not.toContain(pair().referenceBase);
  });

  it('rename says which of its two paths was refused', async () => {
    expect(await pair().runOurs({ command: 'rename', old_path: '/memories/a.md', new_path: '/tmp/a.md' })).toEqual(
      err('new_path: Path must start with /memories; the path given is outside the memory directory. Memory paths look like /memories/notes.md.'),
    );
    expect(await pair().runOurs({ command: 'rename', old_path: '/memories/../a.md', new_path: '/memories/b.md' })).toEqual(
      err('old_path: Path would escape /memories directory: it contains a ".." segment. Write the full path from /memories without "..".'),
    );
  });

  it('the reference takes /memoriesX/a.md for /memories/X/a.md, which we refuse', async () => {
    const { reference } = await both({ command: 'create', path: '/memoriesX/a.md', file_text: 'x' });
    expect(reference).toEqual(ok('File created successfully at: /memoriesX/a.md'));
  });

  it('normalises Unicode to NFC, so both spellings of a name are one memory', async () => {
    const nfd = '/memories/cafe\u0301.md';
    expect((await pair().runOurs({ command: 'create', path: nfd, file_text: 'x' })).content).toBe('File created successfully at: /memories/caf\u00e9.md');
    expect(await pair().runOurs({ command: 'create', path: '/memories/caf\u00e9.md', file_text: 'y' })).toEqual(err('File /memories/caf\u00e9.md already exists'));
  });

  it('drops one trailing slash from a directory path', async () => {
    await seed('/memories/d/a.md', 'a');
    const { ours } = await both({ command: 'view', path: '/memories/d/' });
    expect(ours.content).toBe("Here're the files and directories up to 2 levels deep in /memories/d, excluding hidden items and node_modules:\n1B\t/memories/d\n1B\t/memories/d/a.md");
  });
});

describe('delete and rename', () => {
  it('refuses to delete or rename /memories itself, like the reference', async () => {
    expect(await both({ command: 'delete', path: '/memories' })).toEqual({ reference: err('Cannot delete the /memories directory itself'), ours: err('Cannot delete the /memories directory itself') });
    expect((await both({ command: 'delete', path: '/memories/' })).ours).toEqual(err('Cannot delete the /memories directory itself'));
    expect((await both({ command: 'rename', old_path: '/memories', new_path: '/memories/x' })).ours).toEqual(err('Cannot rename the /memories directory itself'));
  });

  it('refuses to move a directory into its own subtree, where the reference leaks an OS error with its host path', async () => {
    await seed('/memories/d/a.md', 'a');
    const { reference, ours } = await both({ command: 'rename', old_path: '/memories/d', new_path: '/memories/d/sub' });
    expect(reference.content).toContain(pair().referenceBase);
    expect(ours).toEqual(err('Cannot move /memories/d into itself: /memories/d/sub is inside /memories/d. Choose a destination outside it.'));
    expect(await read('/memories/d/a.md')).toBe('a');
  });

  it('a failed rename of a missing memory creates no directories (the reference leaves the new parents behind)', async () => {
    await both({ command: 'rename', old_path: '/memories/nope.md', new_path: '/memories/new/dir/x.md' });
    expect(pair().ours.vault.memory.stat('/memories/new')).toBeUndefined();
    const { reference } = await both({ command: 'view', path: '/memories/new/dir' });
    expect(reference.is_error).toBe(false);
  });

  it('placing something inside a file is a clear error, where the reference leaks its host path', async () => {
    await seed('/memories/f.md', 'f');
    const { reference, ours } = await both({ command: 'create', path: '/memories/f.md/inner.md', file_text: 'x' });
    expect(reference.content).toContain(pair().referenceBase);
    expect(ours).toEqual(err('Cannot create /memories/f.md/inner.md: /memories/f.md is a file, not a directory, so nothing can be placed inside it.'));
    const moved = await pair().runOurs({ command: 'rename', old_path: '/memories/f.md', new_path: '/memories/f.md/g.md' });
    expect(moved).toEqual(err('Cannot move /memories/f.md into itself: /memories/f.md/g.md is inside /memories/f.md. Choose a destination outside it.'));
    await seed('/memories/g.md', 'g');
    const into = await pair().runOurs({ command: 'rename', old_path: '/memories/g.md', new_path: '/memories/f.md/g.md' });
    expect(into).toEqual(err('Cannot move /memories/g.md to /memories/f.md/g.md: /memories/f.md is a file, not a directory, so nothing can be placed inside it.'));
    const viewInside = await pair().runOurs({ command: 'view', path: '/memories/f.md/inner.md' });
    expect(viewInside).toEqual(err('The path /memories/f.md/inner.md does not exist. Please provide a valid path.'));
  });
});
