import { expect, it } from 'vitest';
import { searchMemories } from '../../../electron/core/search/memory-search';
import type { EntryMeta } from '../../../electron/core/vault/types';

/** A memory store holding `files` (path → text), as the vault lists and reads them. */
function memoryOf(files: Record<string, string>) {
  const list = (): EntryMeta[] =>
    Object.keys(files)
      .sort()
      .map((path) => ({ kind: 'file', path, size: files[path]!.length, created: 0, modified: 0, accessed: 0, version: 1 }) as unknown as EntryMeta);
  return { list, readFile: async (p: string) => files[p]! };
}
const marked = (h: { snippet: string; marks: Array<[number, number]> }) => h.marks.reduceRight((s, [a, b]) => `${s.slice(0, a)}[${s.slice(a, b)}]${s.slice(b)}`, h.snippet);

const memory = memoryOf({
  '/memories/pt.md': '# Finanças\n\nComprar **AÇÕES** da empresa.\n',
  '/memories/ja.md': '長期記憶の保存\n短期メモ',
  '/memories/table.md': '| Nome | Ações |\n| --- | --- |\n| Ana | [vender](https://x.test) |',
  '/memories/long.md': `${'palavra '.repeat(300)}o segredo está aqui`,
  '/memories/acoes-index.md': 'nothing here',
});

it('finds a memory line ignoring case and accents, with a clean snippet and the original letters marked', async () => {
  const hits = await searchMemories(memory, 'acoes');
  expect(hits.map((h) => [h.path, h.line])).toEqual([
    ['/memories/acoes-index.md', 0],
    ['/memories/pt.md', 3],
    ['/memories/table.md', 1],
  ]);
  expect(marked(hits[1]!)).toBe('Comprar [AÇÕES] da empresa.');
  expect(marked(hits[2]!)).toBe('Nome [Ações]');
});

it('finds CJK inside a run of characters', async () => {
  const [hit] = await searchMemories(memory, '記憶');
  expect(hit).toMatchObject({ path: '/memories/ja.md', line: 1 });
  expect(marked(hit!)).toBe('長期[記憶]の保存');
});

it('a table row gives its cells as text, without pipes or link syntax', async () => {
  const [hit] = await searchMemories(memory, 'vender');
  expect(hit).toMatchObject({ path: '/memories/table.md', line: 3, snippet: 'Ana vender' });
});

it('a match far along a long line is found and the snippet is cut around it (not the line’s first characters)', async () => {
  const [hit] = await searchMemories(memory, 'SEGREDO');
  expect(hit).toMatchObject({ path: '/memories/long.md', line: 1 });
  expect(hit!.snippet.startsWith('…')).toBe(true);
  expect(marked(hit!)).toContain('[segredo]');
});

it('stops at the hit limit, and a blank query finds nothing', async () => {
  const many = memoryOf(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`/memories/n${String(i).padStart(2, '0')}.md`, 'tea\ntea'])));
  expect(await searchMemories(many, 'TEA', 25)).toHaveLength(25);
  expect(await searchMemories(many, '  ')).toEqual([]);
});
