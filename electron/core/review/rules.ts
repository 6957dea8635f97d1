/**
 * What the review inbox counts as "not looked at yet", as pure functions of
 * what the vault already records (who wrote each version, who deleted what)
 * and what the user acknowledged (the reviewed records kept per project).
 */
import type { ChangeSource, Provenance, VersionEntry } from '../vault/types';

/**
 * A reviewed record: the version the user acknowledged and that version's
 * modified time (a rename touches it, so a stale record left at a path cannot
 * match a different file moved there) and, for a file, its creation time (a
 * memory deleted and made again at the path, whose version numbers restart
 * once the trash is emptied, is another memory), or a mark that Claude (or a script)
 * moved a file here, which makes it to-review whoever wrote its text (`seen`:
 * the version acknowledged before the move, so the diff still starts there;
 * `by`: who moved it when the source alone does not say, an MCP client by name —
 * records written before it existed name only the source).
 */
export type ReviewRecord = { v: number; m: number; c?: number } | { moved: 'claude' | 'cli'; from: string; seen?: number; by?: Provenance };

/** What a `conflict` entry is about (format 2; see conflicts.ts). */
export interface ConflictDetail {
  /** `edit`: changed on two computers at once; `delete`: deleted on one computer while edited on another. */
  what: 'edit' | 'delete';
  /** What marking it acknowledges. */
  id: string;
  /** Edit: the versions set aside, kept in history; delete: the version the delete removed. */
  versions: number[];
  /** Edit: the version both sides started from, when it is still kept (the merge view's common base). */
  base?: number;
  /** The computers involved, by name (the winning or deleting one first). */
  computers: string[];
}

/** One file or deleted memory waiting for the user's look. */
export interface ReviewEntry {
  path: string;
  kind: 'new' | 'changed' | 'deleted' | 'conflict';
  /** The version to look at (for `deleted`: the last one, kept in the trash; for `conflict`: the one that won). */
  version: number;
  /** The last version the user saw (acknowledged or wrote), when it is still kept: the diff's left side. */
  reviewedVersion?: number;
  /** Who wrote it (or deleted it, or moved it here). */
  by: Provenance;
  /** Set when the file was moved here by Claude (or a script): where it was before. */
  from?: string;
  /** Set for `conflict` entries. */
  conflict?: ConflictDetail;
}

/**
 * Whether a change by this writer waits for review: Claude's, the CLI's
 * `memory` command (tool inputs from a script, text nobody in the window has
 * seen), and an MCP client's (another app's model, through `mnemo mcp`). The user's own saves, restores and imports the user chose, Mnemo's
 * own changes and versions from before provenance was kept do not.
 */
export function needsReview(by: Provenance | undefined): boolean {
  return by?.kind === 'claude' || by?.kind === 'cli' || by?.kind === 'mcp';
}

/** The provenance a change event's source stands for (change events carry no conversation). */
export function provenanceOf(source: ChangeSource): Provenance {
  return { kind: source };
}

/**
 * The record when it is about this memory: one made for a file created at
 * another time (a memory since deleted and made again at the path) is about
 * another memory. `created` is undefined for a deleted memory, which a file's
 * record never stands for. Records from before creation times were kept match on
 * version and modified time alone.
 */
export function recordFor(rec: ReviewRecord | undefined, created: number | undefined): ReviewRecord | undefined {
  return rec && 'v' in rec && rec.c !== undefined && rec.c !== created ? undefined : rec;
}

/** True when `rec` acknowledges exactly this state of a memory (its version, modified time and, for a file, creation time). */
export function acknowledges(rec: ReviewRecord | undefined, version: number, modified: number, created?: number): boolean {
  const own = recordFor(rec, created);
  return own !== undefined && 'v' in own && own.v === version && own.m === modified;
}

/**
 * Who wrote the text of `version`: a restore (an undo in the chat, the trash,
 * history) stands for the version it brought back while that one is kept, so
 * text Claude wrote stays Claude's however often it is brought back. Stops at
 * `acknowledged` (text the user saw) with undefined, which counts as reviewed.
 */
export function authorOf(versions: VersionEntry[], version: number, acknowledged: number | undefined): Provenance | undefined {
  const byVersion = new Map(versions.map((v) => [v.version, v]));
  let at = byVersion.get(version);
  // Each restore names an older version; the bound only guards against a damaged history naming itself.
  for (let hops = 0; at && hops <= versions.length; hops++) {
    if (at.version === acknowledged) return undefined;
    const by = at.by;
    if (by?.kind !== 'restore' || by.fromVersion === undefined) return by;
    const from = byVersion.get(by.fromVersion);
    if (!from) return by;
    at = from;
  }
  return at?.by;
}

/**
 * The version the user last saw, among those still kept: the newest of the
 * acknowledged one and those the user (or a non-counting writer) wrote, a
 * restore counting as the text it brought back.
 */
export function baseVersion(versions: VersionEntry[], acknowledged: number | undefined): number | undefined {
  let base: number | undefined;
  for (const v of versions) {
    if (v.current) continue;
    if (v.version === acknowledged || !needsReview(authorOf(versions, v.version, acknowledged))) base = Math.max(base ?? 0, v.version);
  }
  return base;
}
