/**
 * The version graph of the memory files in a SyncState: which versions are
 * heads (named in no version's `par`), what each version descends from, and
 * the newest common ancestor of concurrent heads (the base of a three-way
 * merge). A version's `par` may name versions of another file (a write that
 * absorbed a colliding file, §2.4) and deletes it answered; both are followed
 * or skipped alike on every device.
 */
import type { Fid, SyncState, VersionRec } from './crdt';
import { compareStamped } from './hlc';
import type { Vid } from './ids';

export interface VersionAt {
  vid: Vid;
  fid: Fid;
  rec: VersionRec;
}

/** Sorts stamped versions oldest first by `(h, device, seq)`. */
export const byStamp = (a: VersionAt, b: VersionAt): number => compareStamped({ h: a.rec.h, vid: a.vid }, { h: b.rec.h, vid: b.vid });

export class VersionGraph {
  /** Every version of every file, by vid. */
  readonly all = new Map<Vid, VersionAt>();
  /** Every vid some version names in `par` (versions it replaced, deletes it answered). */
  readonly named = new Set<Vid>();
  /** Versions whose bytes are gone: forgotten (outside the history window) or purged (trash emptied). */
  readonly gone = new Set<Vid>();
  readonly purged = new Set<Vid>();

  constructor(s: SyncState) {
    for (const [fid, f] of s.files) {
      for (const [vid, rec] of f.versions) {
        this.all.set(vid, { vid, fid, rec });
        for (const p of rec.par) this.named.add(p);
      }
    }
    for (const vs of s.purged.values()) for (const v of vs) this.purged.add(v);
    for (const v of s.forgotten) this.gone.add(v);
    for (const v of this.purged) this.gone.add(v);
  }

  /**
   * Takes in, in place, the versions of `fid` that `s` holds and this graph does not (a new own put): true when each
   * replaces only versions and deletes of `fid` itself, so no other file's heads change; false, changing nothing,
   * otherwise (the caller builds the graph again).
   */
  addVersions(s: SyncState, fid: Fid): boolean {
    const f = s.files.get(fid);
    if (!f) return false;
    const fresh = [...f.versions].filter(([vid]) => !this.all.has(vid));
    for (const [, rec] of fresh) for (const p of rec.par) if (this.all.get(p)?.fid !== fid && !f.rms.has(p)) return false;
    for (const [vid, rec] of fresh) {
      this.all.set(vid, { vid, fid, rec });
      for (const p of rec.par) this.named.add(p);
    }
    return true;
  }

  /** Heads of one file: its versions named by no version, whose bytes are kept. Sorted by vid. */
  heads(s: SyncState, fid: Fid): Vid[] {
    const out: Vid[] = [];
    for (const vid of s.files.get(fid)?.versions.keys() ?? []) if (!this.named.has(vid) && !this.gone.has(vid)) out.push(vid);
    return out.sort();
  }

  /** `vids` and every version they descend from (through any file), as a set. */
  closure(vids: Iterable<Vid>): Set<Vid> {
    const seen = new Set<Vid>();
    const todo = [...vids];
    while (todo.length) {
      const v = todo.pop()!;
      if (seen.has(v)) continue;
      const at = this.all.get(v);
      if (!at) continue;
      seen.add(v);
      for (const p of at.rec.par) if (!seen.has(p)) todo.push(p);
    }
    return seen;
  }

  /**
   * The newest (by stamp) version every one of `heads` descends from, or
   * undefined when they share none. A base whose bytes are gone is no base
   * (undefined too): an older ancestor would let a merge silently undo a
   * change one side made after it ("decided in stage 2", docs/sync-design.md).
   */
  base(heads: readonly Vid[]): Vid | undefined {
    let common: Set<Vid> | undefined;
    for (const h of heads) {
      const anc = this.closure([h]);
      common = common ? new Set([...common].filter((v) => anc.has(v))) : anc;
    }
    let best: VersionAt | undefined;
    for (const v of common ?? []) {
      const at = this.all.get(v)!;
      if (!best || byStamp(at, best) > 0) best = at;
    }
    return best && !this.gone.has(best.vid) ? best.vid : undefined;
  }
}
