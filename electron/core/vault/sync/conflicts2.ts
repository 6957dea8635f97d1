/**
 * The conflicts of a format-2 vault as the review inbox lists them (docs/sync-design.md §2.4, §12.7): the view's
 * `conflicts()` with version numbers instead of vids, the computers involved, an id a mark acknowledges, and the
 * edit conflicts a later write of the user's has settled left out.
 */
import type { Provenance } from '../types';
import { deviceOf, L_DEVICE, type Vid } from './ids';
import type { SyncSession } from './session2';
import type { ConflictEntry } from './view';

/** One conflict to review, in the numbers `mnemo history` and `mnemo cat --version` use. */
export interface ConflictInfo {
  /** `edit`: two computers changed the memory at once; `delete`: it was deleted on one while edited on another. */
  what: 'edit' | 'delete';
  /** The memory's vault path. */
  path: string;
  /**
   * What a mark acknowledges, the same on every computer: an edit conflict by the versions set aside (they stay the
   * same when a write records the conflict), a delete by the delete.
   */
  id: string;
  /** The current version: the one that won (edit), or the edit that outlived the delete. */
  version: number;
  /** Edit: the versions set aside (kept in history); delete: the version(s) the delete removed. Only those still kept. */
  others: number[];
  /**
   * Edit: the version both sides were edited from (their newest common ancestor), when it is still kept; what a merge
   * view shows as the common base.
   */
  base?: number;
  /** The device ids of the computers involved (the winner's or the deleting one first); never pseudo-device L. */
  devices: string[];
  /** Who wrote the current version (edit), or who deleted (delete), when recorded. */
  by?: Provenance;
}

/** The id a mark of conflict `c` stores. */
export function conflictId(c: ConflictEntry): string {
  return c.what === 'delete' ? `d:${c.rm}` : `e:${[...c.losers].sort().join(',')}`;
}

/**
 * Writers whose own later write settles a conflict: the user's save only. A restore does not: bringing a deleted
 * memory back from the trash restores its text, not a choice between the versions, so it stays listed until marked.
 */
const settles = (by: Provenance | undefined) => by?.kind === 'user';

/** The conflicts of the vault, by vault path, each once (several recordings of one edit conflict are one). */
export function conflicts2(s: SyncSession): ConflictInfo[] {
  const view = s.view;
  const out = new Map<string, ConflictInfo>();
  // Per path: what every version of the user's (not a recorded copy of a winner) descends from.
  const userSeen = new Map<string, Set<Vid>>();
  const seenAt = (p: string) => {
    let set = userSeen.get(p);
    if (!set) {
      const starts = view
        .versions(p)
        .filter((v) => v.vid && settles(v.by) && view.graph.all.get(v.vid)?.rec.m !== 'conflict')
        .map((v) => v.vid!);
      userSeen.set(p, (set = view.graph.closure(starts)));
    }
    return set;
  };
  for (const c of view.conflicts()) {
    // A recorded edit conflict the user wrote over (or a later save of the user's descends from) is settled.
    if (c.what === 'edit' && c.vid && seenAt(c.path).has(c.vid)) continue;
    const id = conflictId(c);
    const key = `${c.path}\u0000${id}`;
    if (out.has(key)) continue;
    const versions = view.versions(c.path);
    const number = new Map(versions.flatMap((v) => (v.vid ? [[v.vid, v.version] as const] : [])));
    const current = versions.at(-1);
    const others = (c.what === 'edit' ? c.losers : (view.s.files.get(c.fid)?.rms.get(c.rm)?.heads ?? [])).flatMap((v) => (number.has(v) ? [number.get(v)!] : []));
    const devs = c.what === 'edit' ? [c.winner, ...c.losers].map(deviceOf) : [c.device, ...(current?.device ? [current.device] : [])];
    const by = c.what === 'edit' ? view.graph.all.get(c.winner)?.rec.w : c.by;
    // A recorded conflict does not name its base: it is what the heads the recording write replaced (its parents) share.
    const recorded = c.what === 'edit' && c.vid ? view.graph.all.get(c.vid)?.rec.par : undefined;
    const baseVid = c.what !== 'edit' ? undefined : recorded ? view.graph.base(recorded) : c.base;
    const base = baseVid ? number.get(baseVid) : undefined;
    out.set(key, {
      what: c.what,
      path: c.path,
      id,
      version: (c.what === 'edit' ? number.get(c.winner) : undefined) ?? current?.version ?? 1,
      others: [...new Set(others)].sort((a, b) => a - b),
      ...(base !== undefined ? { base } : {}),
      devices: [...new Set(devs)].filter((d) => d !== L_DEVICE),
      ...(by ? { by } : {}),
    });
  }
  return [...out.values()];
}
