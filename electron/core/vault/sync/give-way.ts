/**
 * A copy of this computer that gives way to another copy of it (docs/sync-design.md §12.9): its own record at a seq
 * gone from its folder, or lying beside another confirmed record at that seq (a clone, or a whole computer restored
 * from a backup that wrote before the others' files reached it). That copy keeps the memory texts it wrote on its
 * branch, to write them again under a new id, no longer applies its records of that branch, and removes the files that
 * held only them once the texts are written again. Store2 holds one, and rehomes and rebuilds around it.
 */
import path from 'node:path';
import type { VaultFs } from '../fsio';
import type { Provenance } from '../types';
import type { BlobIndex } from './blobs2';
import { compareHlc } from './hlc';
import { parseVid } from './ids';
import type { PathRec, SyncState, VersionRec } from './crdt';
import type { DeviceFolder, RecInfo } from './scan';
import { replacedAt } from './visible';

/** A memory text to write again under the new id. */
export interface Redo {
  path: string;
  text: Uint8Array;
  by?: Provenance;
}

export class GiveWay {
  /** The tag of each own record in the own folder, as this process first saw or wrote it. */
  private ownTags = new Map<number, string>();
  /** This copy's records on the branch it gave way on, under the id it left: by seq, their tags. */
  private readonly dropped = new Map<number, string>();
  /** The newest text of each memory written on that branch (vault2.ts `redoDropped` writes them again). */
  redo: Redo[] = [];
  /** Of those, how many could not be read or written again. */
  redoLost = 0;
  /** What `verify` says of the fork, for the rest of the session. */
  readonly lines: string[] = [];

  /** An own record this process wrote. */
  wrote(seq: number, tag: string): void {
    this.ownTags.set(seq, tag);
  }

  /** The own id is left: what was noted of it no longer applies. */
  forget(): void {
    this.ownTags.clear();
  }

  /**
   * The first own seq whose record in the own folder `own` is no longer the one this process saw or wrote there
   * (visible.ts `replacedAt`); undefined when none is.
   */
  replaced(own: DeviceFolder | undefined): number | undefined {
    if (!own) return undefined;
    const bySeq = new Map<number, RecInfo[]>();
    for (const s of own.segments) for (const r of s.records) if (r.seq !== undefined) bySeq.set(r.seq, [...(bySeq.get(r.seq) ?? []), r]);
    const next = new Map<number, string>();
    let replaced: number | undefined;
    for (const [seq, cands] of [...bySeq].sort((x, y) => x[0] - y[0])) {
      const was = this.ownTags.get(seq);
      // First seen: the confirmed record (an unconfirmed one beside it is a failed append's, never applied).
      next.set(seq, was ?? (cands.find((r) => r.confirmed) ?? cands[0]!).tag);
      if (was !== undefined && replacedAt(cands, was)) replaced ??= seq;
    }
    this.ownTags = next;
    return replaced;
  }

  /**
   * Before this copy gives way from own seq `from` on: the newest version of each memory it wrote on that branch, at
   * its newest path, read while its bytes are still there (the other copy's file may have replaced the one that held
   * them: then it counts as lost), and the records of that branch, which are no longer applied. Deletes, renames,
   * conversations and settings of that branch are not carried over. `forks`: the lines to keep saying.
   */
  async keep(state: SyncState, blobs: BlobIndex, me: string, from: number, forks: string[]): Promise<void> {
    this.lines.push(...forks.filter((f) => f.startsWith('this computer')));
    const newest = new Map<string, VersionRec>();
    for (const [fid, f] of state.files) {
      for (const [vid, rec] of f.versions) {
        const at = parseVid(vid);
        if (at?.dev !== me || at.seq === undefined || at.seq < from) continue;
        const have = newest.get(fid);
        if (!have || compareHlc(rec.h, have.h) > 0) newest.set(fid, rec);
      }
    }
    for (const [fid, rec] of newest) {
      let where: PathRec | undefined;
      for (const r of state.files.get(fid)!.path.values()) if (!where || compareHlc(r.h, where.h) > 0) where = r;
      if (!where) continue;
      try {
        this.redo.push({ path: where.p, text: await blobs.read('blobs', rec.b, where.p), ...(rec.w ? { by: rec.w } : {}) });
      } catch {
        this.redoLost++;
      }
    }
    for (const [seq, tag] of this.ownTags) if (seq >= from) this.dropped.set(seq, tag);
  }

  /** `folders` without the records this copy gave way on (of `left`, the id it left). */
  without(folders: Map<string, DeviceFolder>, left: string | undefined): Map<string, DeviceFolder> {
    const f = left === undefined ? undefined : folders.get(left);
    if (!f || !this.dropped.size) return folders;
    const keep = (r: RecInfo) => r.seq === undefined || this.dropped.get(r.seq) !== r.tag;
    return new Map([...folders, [left!, { ...f, segments: f.segments.map((x) => ({ ...x, records: x.records.filter(keep) })) }]]);
  }

  /**
   * Removes from `folder` (the left id's, at `dir`) the segment files that hold only records this copy gave way on
   * (it wrote them), once their texts are written again: every other computer then follows the other copy's records,
   * whichever it would have taken first. Best effort.
   */
  async remove(fsx: VaultFs, dir: string, folder: DeviceFolder): Promise<void> {
    for (const x of folder.segments) {
      const ops = x.records.filter((r) => r.seq !== undefined);
      if (ops.length && ops.every((r) => this.dropped.get(r.seq!) === r.tag)) await fsx.unlink(path.join(dir, x.name)).catch(() => undefined);
    }
  }
}
