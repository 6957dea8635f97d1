/**
 * Three-way merge of a memory, line by line (node-diff3, pinned exactly in
 * package.json): `base` is the common ancestor, `mine` and `theirs` the two
 * edited texts. The editor merges the user's text with the version now stored;
 * the sync view (core/vault/sync/resolve.ts) merges concurrent heads written on
 * different devices. Both must merge alike, and every device must merge alike,
 * so this is the one merge, pure and dependency-light, shared by both sides:
 * its result is part of the vault format (docs/sync-design.md §11).
 *
 * Changes on different lines are all kept; where both sides changed the same
 * lines (or lines next to each other, as in git and GNU diff3) the result has
 * a conflict for the user to settle. Both sides making the same change is no
 * conflict.
 *
 * Line endings and the final newline are properties of the whole file, merged
 * the same three-way rule, so a file saved with CRLF elsewhere, or a newline
 * added at the end, does not turn every line (or the last) into a conflict.
 */
import { diff3Merge } from 'node-diff3';

export type MergeChunk =
  /** Lines both sides agree on after the merge (untouched, changed by one side, or changed alike by both). */
  | { kind: 'same'; lines: string[] }
  /** Lines both sides changed differently. `mineLine`, `theirsLine`: where the region starts in each text, counted from 1. */
  | { kind: 'conflict'; index: number; base: string[]; mine: string[]; theirs: string[]; mineLine: number; theirsLine: number };

export type Conflict = Extract<MergeChunk, { kind: 'conflict' }>;

export interface Merge3 {
  chunks: MergeChunk[];
  /** How many conflict chunks there are (numbered 0… in `index`). */
  conflicts: number;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

export type Choice = 'mine' | 'theirs';

interface Lines {
  lines: string[];
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** Splits a text into lines without its line-ending style or final newline, which are merged apart. */
function split(text: string): Lines {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let body = text.replace(/\r\n/g, '\n');
  const finalNewline = body.endsWith('\n');
  if (finalNewline) body = body.slice(0, -1);
  // An empty text has no lines (not one empty line), so adding the first line is an insertion, not a change.
  return { lines: body === '' && !finalNewline ? [] : body.split('\n'), eol, finalNewline };
}

/** One whole-file property, merged three ways: a side that changed it wins; if both did, mine. */
function pick<T>(base: T, mine: T, theirs: T): T {
  return mine !== base ? mine : theirs;
}

/** Merges `mine` and `theirs`, both edited from `base`. */
export function merge3(base: string, mine: string, theirs: string): Merge3 {
  const o = split(base);
  const a = split(mine);
  const b = split(theirs);
  const chunks: MergeChunk[] = [];
  let conflicts = 0;
  const same = (lines: string[]) => {
    if (lines.length === 0) return;
    const last = chunks.at(-1);
    if (last?.kind === 'same') last.lines.push(...lines);
    else chunks.push({ kind: 'same', lines: [...lines] });
  };
  // node-diff3's LCS takes time in proportion to lines × common lines: lines all three share at the start and the
  // end are set aside first, so an edit or two in a long memory costs only the stretch between them.
  const { head, tail } = sharedEnds(o.lines, a.lines, b.lines);
  const mid = (l: string[]) => l.slice(head, l.length - tail);
  same(o.lines.slice(0, head));
  for (const region of diff3Merge<string>(mid(a.lines), mid(o.lines), mid(b.lines), { excludeFalseConflicts: true })) {
    if (region.ok) same(region.ok);
    else if (region.conflict) {
      const c = region.conflict;
      chunks.push({ kind: 'conflict', index: conflicts++, base: c.o, mine: c.a, theirs: c.b, mineLine: head + c.aIndex + 1, theirsLine: head + c.bIndex + 1 });
    }
  }
  same(o.lines.slice(o.lines.length - tail));
  return { chunks, conflicts, eol: pick(o.eol, a.eol, b.eol), finalNewline: pick(o.finalNewline, a.finalNewline, b.finalNewline) };
}

/** How many lines the three texts share at the start (`head`) and, apart from those, at the end (`tail`). */
function sharedEnds(o: string[], a: string[], b: string[]): { head: number; tail: number } {
  const shortest = Math.min(o.length, a.length, b.length);
  let head = 0;
  while (head < shortest && o[head] === a[head] && o[head] === b[head]) head++;
  let tail = 0;
  while (tail < shortest - head && o[o.length - 1 - tail] === a[a.length - 1 - tail] && o[o.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { head, tail };
}

/** The merged text with each conflict settled by `choices[index]`; undefined while any is unsettled. */
export function mergedText(m: Merge3, choices: ReadonlyArray<Choice | undefined> = []): string | undefined {
  const lines: string[] = [];
  for (const chunk of m.chunks) {
    if (chunk.kind === 'same') lines.push(...chunk.lines);
    else {
      const choice = choices[chunk.index];
      if (!choice) return undefined;
      lines.push(...chunk[choice]);
    }
  }
  return joinLines(lines, m.eol, m.finalNewline);
}

function joinLines(lines: string[], eol: string, finalNewline: boolean): string {
  return lines.join(eol) + (finalNewline ? eol : '');
}
