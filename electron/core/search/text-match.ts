/**
 * Finding what a person typed in stored text the way they expect: case and
 * accents ignored ("acoes" finds "AÇÕES"), no word boundaries needed (so CJK,
 * which has none, matches inside a run: "記憶" in "長期記憶の保存"), and Markdown
 * read as the text it shows. Hits come back as a short clean snippet with the
 * matched ranges, so the window can highlight the original characters.
 */

/** A match's place in a string: [start, end) in UTF-16 units. */
export type Range = [number, number];

/** A text found for a query: the snippet to show and where the query is in it. */
export interface Snippet {
  snippet: string;
  marks: Range[];
}

const COMBINING = /\p{M}/u;

/**
 * `text` lowercased with accents removed, and for each unit of the result the
 * index in `text` it came from (plus `text.length` at the end), so a range found
 * in the folded text maps back to the original characters.
 */
export function fold(text: string): { folded: string; map: number[] } {
  let folded = '';
  const map: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    // Per character, so a character that decomposes or lowercases to several units still maps to itself.
    for (const part of ch.normalize('NFD')) {
      if (COMBINING.test(part)) continue;
      const lower = part.toLowerCase();
      folded += lower;
      for (let k = 0; k < lower.length; k++) map.push(i);
    }
    i += ch.length;
  }
  map.push(text.length);
  return { folded, map };
}

/** The folded form of a query (what `fold` makes, without the map), trimmed and with runs of spaces made one. */
export function foldQuery(query: string): string {
  return fold(query.replace(/\s+/g, ' ').trim()).folded;
}

/** Every place `query` (already folded by `foldQuery`) occurs in `text`, as ranges of the original text; at most `max`. */
export function findAll(text: string, query: string, max = 20): Range[] {
  if (!query) return [];
  const { folded, map } = fold(text);
  const out: Range[] = [];
  for (let at = folded.indexOf(query); at >= 0 && out.length < max; at = folded.indexOf(query, at + query.length)) {
    const start = map[at]!;
    // The end is where the unit after the match came from (a folded-away accent after the last letter is inside).
    const last = map[at + query.length - 1]!;
    let end = map[at + query.length]!;
    if (end <= last) end = last + 1;
    out.push([start, nextBoundary(text, end)]);
  }
  return out;
}

/** Whether `query` (folded) occurs in `text`. */
export function contains(text: string, query: string): boolean {
  if (!query) return false;
  // The whole text at once (no index map): this runs over every stored text on each keystroke's search.
  return text.normalize('NFD').replace(COMBINING_ALL, '').toLowerCase().includes(query);
}
const COMBINING_ALL = /\p{M}/gu;

/** Moves `i` past combining marks and the low half of a surrogate pair, so a range never splits a character. */
function nextBoundary(text: string, i: number): number {
  while (i < text.length && (COMBINING.test(text[i]!) || isLowSurrogate(text.charCodeAt(i)))) i++;
  return i;
}
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Markdown as the text it shows, on one line: no heading marks, emphasis,
 * code fences, table pipes or rules, link and image syntax (their words
 * stay), HTML tags or list and quote markers; whitespace collapsed.
 */
export function plainText(markdown: string): string {
  const lines = markdown.split(/\r?\n/).map((line) => {
    let l = line;
    if (/^\s*(```|~~~)/.test(l)) return '';
    // A table's separator row (|---|:---:|) and a rule (---, ***) show nothing.
    if (/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(l) || /^\s*([-*_])(\s*\1){2,}\s*$/.test(l)) return '';
    l = l.replace(/^\s{0,3}#{1,6}\s+/, '').replace(/\s+#+\s*$/, '');
    l = l.replace(/^\s*(>\s*)+/, '');
    l = l.replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '');
    l = l.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1');
    l = l.replace(/<\/?[A-Za-z][^>]*>/g, ' ');
    l = l.replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2').replace(/(^|[^\w*])[*_](?=\S)([^*_]*?\S)[*_](?![\w*])/g, '$1$2');
    l = l.replace(/`+([^`]*)`+/g, '$1');
    if (l.includes('|')) l = l.replace(/^\s*\|/, '').replace(/\|\s*$/, '').replace(/\s*\|\s*/g, ' ');
    return l;
  });
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The part of `text` (already plain, see `plainText`) around the first match
 * of `query` (folded), about `width` characters long, with "…" where it was
 * cut, and every match inside it; undefined when there is none.
 */
export function snippetOf(text: string, query: string, width = 160): Snippet | undefined {
  const all = findAll(text, query, 50);
  const first = all[0];
  if (!first) return undefined;
  const room = Math.max(0, width - (first[1] - first[0]));
  let start = Math.max(0, first[0] - Math.floor(room / 3));
  let end = Math.min(text.length, Math.max(first[1], start + width));
  if (end - start < width) start = Math.max(0, end - width);
  // Cut at a space when one is near (not inside a word), never inside a character.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < first[0] && space - start < 20) start = space + 1;
    start = nextBoundary(text, start);
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space >= first[1] && end - space < 20) end = space;
    end = nextBoundary(text, end);
  }
  const lead = start > 0 ? '…' : '';
  const body = text.slice(start, end).trim();
  const offset = start + (text.slice(start, end).length - text.slice(start, end).trimStart().length) - lead.length;
  const marks = all.filter(([s, e]) => s >= start && e <= end).map(([s, e]): Range => [s - offset, e - offset]);
  return { snippet: `${lead}${body}${end < text.length ? '…' : ''}`, marks };
}

/**
 * Whether folded `query` occurs in Markdown `markdown`, in its source or in the
 * text it shows. The shown text is only worked out for a query with a space:
 * only then can Markdown (table pipes, line breaks, emphasis between words)
 * split what was typed, and this runs over every stored text.
 */
export function containsMarkdown(markdown: string, query: string): boolean {
  return contains(markdown, query) || (query.includes(' ') && contains(plainText(markdown), query));
}

/** The snippet for `query` in Markdown `markdown`: matched in the text it shows, else in its source (a query with Markdown in it). */
export function markdownSnippet(markdown: string, query: string, width = 160): Snippet | undefined {
  return snippetOf(plainText(markdown), query, width) ?? snippetOf(markdown.replace(/\s+/g, ' ').trim(), query, width);
}
