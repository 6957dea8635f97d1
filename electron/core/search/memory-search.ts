/**
 * Search over one project's memories for the memory browser: every line of
 * every memory, and every memory's path, matched ignoring case and accents
 * (text-match.ts), each hit a clean snippet with the match marked.
 */
import type { MemoryOps } from '../vault/types';
import { contains, containsMarkdown, foldQuery, markdownSnippet, type Range } from './text-match';

export interface MemoryHit {
  path: string;
  /** 1-based line of the hit; 0 when the path matched. */
  line: number;
  snippet: string;
  marks: Range[];
}

/** The most hits a memory search returns, matches by name included. */
export const MAX_MEMORY_HITS = 200;

/**
 * The hits for `query` in `memory`, in tree order, at most `max`. A line's
 * snippet is cut around its match, however far along the line it is.
 */
export async function searchMemories(memory: Pick<MemoryOps, 'list' | 'readFile'>, query: string, max = MAX_MEMORY_HITS): Promise<MemoryHit[]> {
  const q = foldQuery(query);
  const hits: MemoryHit[] = [];
  if (!q) return hits;
  for (const e of memory.list('/memories', Infinity)) {
    // Once the list is full, decrypting the rest would only cost time (a vault may hold thousands of memories).
    if (hits.length >= max) break;
    if (e.kind !== 'file') continue;
    const text = await memory.readFile(e.path);
    const before = hits.length;
    if (containsMarkdown(text, q)) {
      const lines = text.split('\n');
      for (let i = 0; i < lines.length && hits.length < max; i++) {
        const hit = containsMarkdown(lines[i]!, q) ? markdownSnippet(lines[i]!, q) : undefined;
        if (hit) hits.push({ path: e.path, line: i + 1, ...hit });
      }
      // Only across a line break (a query with a space): the memory is still listed, with the text around it.
      const across = hits.length === before ? markdownSnippet(text, q) : undefined;
      if (across) hits.push({ path: e.path, line: 1, ...across });
    }
    if (hits.length === before && contains(e.path, q)) hits.push({ path: e.path, line: 0, snippet: '', marks: [] });
  }
  return hits;
}
