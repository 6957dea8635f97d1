/**
 * Size limits and view paging: files and the vault stop growing at their
 * bounds, and a long file or directory is shown a page at a time with a hint
 * that tells Claude how to read on.
 */
import { describe, expect, it } from 'vitest';
import { sharedFixture } from '../fixture';
import { DEFAULT_MEMORY_LIMITS, resolveLimits } from '../../../electron/core/memory/limits';
import { formatFileSize } from '../../../electron/core/memory/format';
import { memoryTool, openTestVault } from './helpers';

const tv = sharedFixture(openTestVault, (f) => f.clear());

describe('limits', () => {
  it('defaults to 1 MiB per file, 100 MiB per vault and 64k characters per view', () => {
    expect(DEFAULT_MEMORY_LIMITS).toEqual({ maxFileBytes: 1048576, maxVaultBytes: 104857600, maxViewChars: 65536 });
    expect(resolveLimits({ maxViewChars: 100 })).toEqual({ ...DEFAULT_MEMORY_LIMITS, maxViewChars: 100 });
    expect(() => resolveLimits({ maxFileBytes: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ maxVaultBytes: 1.5 })).toThrow(RangeError);
  });

  it('formats sizes as the reference does', () => {
    expect([0, 1, 1023, 1024, 1536, 5632, 2000, 1048576, 1258291, 3 * 1024 ** 3].map(formatFileSize)).toEqual([
      '0B', '1B', '1023B', '1K', '1.5K', '5.5K', '2.0K', '1M', '1.2M', '3G',
    ]);
  });

  it('refuses to create, replace or insert past the file limit, counting UTF-8 bytes, and changes nothing', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxFileBytes: 100 } });
    const message =
      'Error: No change was made: /memories/big.md would be 101B, over the 100B limit for one memory file. ' +
      'Keep memory files short: summarise, or split the content over several files.';
    expect(await run({ command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(101) })).toEqual({ content: message, is_error: true });
    expect(await run({ command: 'create', path: '/memories/big.md', file_text: 'é'.repeat(50) })).toEqual({ content: 'File created successfully at: /memories/big.md', is_error: false });
    expect((await run({ command: 'str_replace', path: '/memories/big.md', old_str: 'é', new_str: 'éé' })).is_error).toBe(true);
    expect(await run({ command: 'insert', path: '/memories/big.md', insert_line: 0, insert_text: '' })).toEqual({ content: message, is_error: true });
    expect(await tv().vault.memory.readFile('/memories/big.md')).toBe('é'.repeat(50));
  });

  it('refuses growth past the vault limit but lets Claude shrink a file, which makes room again', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxVaultBytes: 250 } });
    await run({ command: 'create', path: '/memories/a.md', file_text: 'a'.repeat(100) + 'z'.repeat(100) });
    expect(await run({ command: 'create', path: '/memories/b.md', file_text: 'b'.repeat(51) })).toEqual({
      content:
        'Error: No change was made: the memory directory would hold 251B, over its 250B limit. ' +
        'Delete or shorten memories that are no longer needed, then try again.',
      is_error: true,
    });
    expect(tv().vault.memory.stat('/memories/b.md')).toBeUndefined();
    expect((await run({ command: 'create', path: '/memories/b.md', file_text: 'b'.repeat(50) })).is_error).toBe(false);
    expect((await run({ command: 'insert', path: '/memories/b.md', insert_line: 0, insert_text: 'more' })).is_error).toBe(true);
    expect((await run({ command: 'str_replace', path: '/memories/a.md', old_str: 'z'.repeat(100), new_str: '' })).is_error).toBe(false);
    expect((await run({ command: 'insert', path: '/memories/b.md', insert_line: 0, insert_text: 'more' })).is_error).toBe(false);
    expect(tv().vault.memory.totalSize()).toBe(155);
  });
});

describe('view paging', () => {
  const LINES = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: ${'word '.repeat(i % 7)}`);

  it('cuts a long file under the character cap and names the view_range that shows the rest', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: 2000 } });
    await run({ command: 'create', path: '/memories/long.md', file_text: LINES.join('\n') });
    const first = await run({ command: 'view', path: '/memories/long.md' });
    expect(first.is_error).toBe(false);
    expect(first.content.length).toBeLessThanOrEqual(2000);
    const hint = /\n\[Showing lines 1-(\d+) of 400: the view was cut to stay under 2000 characters\. To read on, call view with view_range: \[(\d+), -1\]\.\]$/.exec(first.content);
    expect(hint).not.toBeNull();
    expect(Number(hint![2])).toBe(Number(hint![1]) + 1);
  });

  it('following the hints pages through the whole file, every line exactly once', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: 1500 } });
    await run({ command: 'create', path: '/memories/long.md', file_text: LINES.join('\n') });
    const seen: string[] = [];
    let range: number[] | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await run(range ? { command: 'view', path: '/memories/long.md', view_range: range } : { command: 'view', path: '/memories/long.md' });
      expect(result.is_error).toBe(false);
      expect(result.content.length).toBeLessThanOrEqual(1500);
      const body = result.content.split('\n').slice(1);
      const next = /view_range: \[(\d+), (-?\d+)\]\.\]$/.exec(body[body.length - 1] ?? '');
      seen.push(...(next ? body.slice(0, -1) : body));
      if (!next) break;
      range = [Number(next[1]), Number(next[2])];
    }
    expect(seen).toEqual(LINES.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`));
  });

  it('a paged view_range keeps its own end in the hint', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: 1000 } });
    await run({ command: 'create', path: '/memories/long.md', file_text: LINES.join('\n') });
    const result = await run({ command: 'view', path: '/memories/long.md', view_range: [100, 300] });
    expect(result.content).toMatch(/^Here's the content of \/memories\/long\.md with line numbers:\n {3}100\tline 100: /);
    expect(result.content).toMatch(/\[Showing lines 100-\d+ of 400: .* view_range: \[\d+, 300\]\.\]$/);
  });

  it('a single line longer than the cap shows its beginning and says so', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: 1000 } });
    await run({ command: 'create', path: '/memories/wide.md', file_text: `short\n${'w'.repeat(5000)}\nend` });
    const result = await run({ command: 'view', path: '/memories/wide.md', view_range: [2, -1] });
    expect(result.content.length).toBeLessThanOrEqual(1000);
    expect(result.content).toContain('     2\twww');
    expect(result.content).toMatch(/\[Line 2 is too long to show whole in one view \(over 1000 characters\); only its beginning is shown\. .* view_range: \[3, -1\]\.\]$/);
  });

  it('cuts a long directory listing and says how many entries are left out', async () => {
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: 1200 } });
    await tv().vault.exclusive(async (ops) => {
      for (let i = 0; i < 60; i++) await ops.writeFile(`/memories/f${String(i).padStart(2, '0')}.md`, 'x', { mode: 'create', source: 'system' });
    });
    const result = await run({ command: 'view', path: '/memories' });
    expect(result.content.length).toBeLessThanOrEqual(1200);
    const cut = /\n\[Listing cut: (\d+) more entries are not shown to keep this view under 1200 characters\. View a subdirectory to see its entries\.\]$/.exec(result.content);
    expect(cut).not.toBeNull();
    const shown = result.content.split('\n').filter((l) => l.startsWith('1B\t')).length;
    expect(shown + Number(cut![1])).toBe(60);
  });

  it('a file that fits is shown whole, without a hint', async () => {
    const { run } = memoryTool(tv().vault);
    await run({ command: 'create', path: '/memories/long.md', file_text: LINES.join('\n') });
    const result = await run({ command: 'view', path: '/memories/long.md' });
    expect(result.content).toBe(`Here's the content of /memories/long.md with line numbers:\n${LINES.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n')}`);
  });
});

describe('the view cap is a ceiling, not a target', () => {
  it('a file or listing exactly at the cap is shown whole', async () => {
    await tv().clear();
    const header = "Here's the content of /memories/exact.md with line numbers:";
    const text = 'x'.repeat(500);
    const cap = header.length + 1 + 7 + text.length;
    const { run } = memoryTool(tv().vault, { limits: { maxViewChars: cap } });
    await run({ command: 'create', path: '/memories/exact.md', file_text: text });
    const viewed = await run({ command: 'view', path: '/memories/exact.md' });
    expect(viewed.content).toBe(`${header}\n     1\t${text}`);
    expect(viewed.content.length).toBe(cap);
    const cut = await memoryTool(tv().vault, { limits: { maxViewChars: cap - 1 } }).run({ command: 'view', path: '/memories/exact.md' });
    expect(cut.content).toMatch(/only its beginning is shown/);
    expect(cut.content.length).toBeLessThanOrEqual(cap - 1);
    const listing = await run({ command: 'view', path: '/memories' });
    expect(listing.content).toBe("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n500B\t/memories\n500B\t/memories/exact.md");
  });
});
