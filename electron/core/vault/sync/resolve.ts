/**
 * What a memory file with several alive heads reads as (docs/sync-design.md
 * §2.4, steps 1–6), the same on every device:
 * 1. heads with the same content id collapse into the smallest vid;
 * 2. one head left: it is current;
 * 3. otherwise the heads, newest first, are folded pairwise with the pinned
 *    three-way line merge (electron/shared/merge3.ts over node-diff3), the
 *    newest common ancestor as base;
 * 4. no overlapping change: the merged text is current;
 * 5. otherwise the newest head wins and the others are losers, kept as
 *    versions and listed as a conflict;
 * 6. with no base (two files created apart, or the base's bytes gone): 5.
 */
import { merge3, mergedText } from '../../../shared/merge3';
import { compareVid, type Vid } from './ids';
import { byStamp, type VersionGraph } from './graph';
import type { BlobRef2 } from './op';

/** The plaintext of a version (its blob). Synchronous: the caller loads the texts a view needs first (see SyncView.textsNeeded). */
export type TextReader = (b: BlobRef2, vid: Vid) => string;

export type Resolution =
  /** One head (after collapsing equal texts). */
  | { kind: 'single'; vid: Vid }
  /** Concurrent heads merged without overlap: `text` is current (not stored until a device materialises it). */
  | { kind: 'merge'; heads: Vid[]; base: Vid; text: string; size: number }
  /** Overlapping edits or no base: `winner` is current, `losers` are kept as versions. */
  | { kind: 'conflict'; heads: Vid[]; winner: Vid; losers: Vid[]; base?: Vid };

/** The heads left after rule 1, sorted by vid. */
export function collapse(g: VersionGraph, heads: readonly Vid[]): Vid[] {
  const byContent = new Map<string, Vid>();
  const out: Vid[] = [];
  for (const vid of [...heads].sort(compareVid)) {
    const k = g.all.get(vid)?.rec.k ?? '';
    if (k === '') out.push(vid);
    else if (!byContent.has(k)) {
      byContent.set(k, vid);
      out.push(vid);
    }
  }
  return out;
}

/**
 * What a TextReader throws for a version whose bytes have not arrived yet (a
 * sync engine delivered its segment's removal before the pack it moved to):
 * the file resolves as a conflict until they do (decided in stage 3).
 */
export class TextNotHere extends Error {}

/** Resolves a file's alive heads (non-empty). `read` is needed only when a merge must be tried. */
export function resolveHeads(g: VersionGraph, alive: readonly Vid[], read: TextReader | undefined): Resolution {
  const heads = collapse(g, alive);
  if (heads.length === 1) return { kind: 'single', vid: heads[0]! };
  const newestFirst = heads.map((v) => g.all.get(v)!).sort((a, b) => byStamp(b, a));
  const winner = newestFirst[0]!.vid;
  const losers = newestFirst.slice(1).map((v) => v.vid);
  const base = g.base(heads);
  const conflict: Resolution = { kind: 'conflict', heads, winner, losers, ...(base ? { base } : {}) };
  if (!base) return conflict;
  if (!read) throw new Error('resolveHeads: a text reader is needed to merge concurrent versions');
  const baseAt = g.all.get(base)!;
  let acc: string;
  try {
    const baseText = read(baseAt.rec.b, base);
    acc = read(newestFirst[0]!.rec.b, winner);
    for (const other of newestFirst.slice(1)) {
      const m = merge3(baseText, acc, read(other.rec.b, other.vid));
      if (m.conflicts > 0) return conflict;
      acc = mergedText(m)!;
    }
  } catch (e) {
    if (e instanceof TextNotHere) return conflict;
    throw e;
  }
  return { kind: 'merge', heads, base, text: acc, size: new TextEncoder().encode(acc).length };
}
