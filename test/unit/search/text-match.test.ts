import { describe, expect, it } from 'vitest';
import { contains, findAll, fold, foldQuery, markdownSnippet, plainText, snippetOf } from '../../../electron/core/search/text-match';

/** The snippet with its marks shown as [brackets], to read what would be highlighted. */
const marked = (s: { snippet: string; marks: Array<[number, number]> } | undefined) => {
  if (!s) return undefined;
  let out = s.snippet;
  for (const [a, b] of [...s.marks].reverse()) out = `${out.slice(0, a)}[${out.slice(a, b)}]${out.slice(b)}`;
  return out;
};

describe('matching ignores case and accents, and needs no word boundaries', () => {
  it('"acoes" finds "ações" and "AÇÕES", and the mark covers the original letters', () => {
    const q = foldQuery('acoes');
    expect(contains('As ações da empresa', q)).toBe(true);
    expect(contains('AÇÕES', q)).toBe(true);
    expect(marked(snippetOf('As ações da empresa', q))).toBe('As [ações] da empresa');
    expect(marked(snippetOf('AÇÕES', q))).toBe('[AÇÕES]');
  });

  it('a query typed with accents finds text without them, and text stored decomposed (NFD)', () => {
    expect(contains('Acoes', foldQuery('AÇÕES'))).toBe(true);
    const decomposed = 'boa acõ\u0303es'.normalize('NFD');
    expect(marked(snippetOf(decomposed, foldQuery('acoes')))).toBe(`boa [${decomposed.slice(4)}]`);
  });

  it('CJK is matched inside a run of characters', () => {
    const q = foldQuery('記憶');
    expect(contains('長期記憶の保存', q)).toBe(true);
    expect(marked(snippetOf('長期記憶の保存', q))).toBe('長期[記憶]の保存');
  });

  it('characters outside the BMP are never split by a range', () => {
    const text = 'note 😀😀 emoji';
    const [r] = findAll(text, foldQuery('😀'));
    expect(text.slice(...r!)).toBe('😀');
  });

  it('fold keeps a map back to the original text', () => {
    const { folded, map } = fold('Ação!');
    expect(folded).toBe('acao!');
    expect(map).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('snippets are clean text cut around the match', () => {
  it('Markdown becomes the text it shows: no heading marks, emphasis, table pipes, or link syntax', () => {
    const md = '# Plano\n\n| Nome | Ações |\n| --- | --- |\n| Ana | **vender** [ver](https://x.test/a) |\n\n> citação `code`';
    expect(plainText(md)).toBe('Plano Nome Ações Ana vender ver citação code');
    const s = markdownSnippet(md, foldQuery('acoes'))!;
    expect(s.snippet).not.toMatch(/[|#*[\]()]/);
    expect(marked(s)).toContain('[Ações]');
  });

  it('a match far beyond the start of a long text is found, cut around with ellipses', () => {
    const text = `${'lorem ipsum '.repeat(100)}the needle is here ${'dolor sit '.repeat(100)}`;
    const s = snippetOf(plainText(text), foldQuery('NEEDLE'), 80)!;
    expect(s.snippet.startsWith('…')).toBe(true);
    expect(s.snippet.endsWith('…')).toBe(true);
    expect(s.snippet.length).toBeLessThanOrEqual(84);
    expect(marked(s)).toContain('[needle]');
  });

  it('every occurrence inside the snippet is marked; whitespace is collapsed', () => {
    expect(marked(snippetOf(plainText('tea   and\n\nTea and TEA'), foldQuery('tea')))).toBe('[tea] and [Tea] and [TEA]');
  });

  it('no snippet when nothing matches, also after folding', () => {
    expect(snippetOf('ações', foldQuery('acoez'))).toBeUndefined();
    expect(markdownSnippet('| a | b |', foldQuery('x'))).toBeUndefined();
  });

  it('a query containing Markdown still finds its source text', () => {
    expect(marked(markdownSnippet('see **bold** here', foldQuery('**bold**')))).toBe('see [**bold**] here');
  });
});
