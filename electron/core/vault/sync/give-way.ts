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
import type { BlobRef2 } from './op';
import { compareHlc, type Hlc } from './hlc';
import { parseVid } from './ids';
import type { PathRec, SyncState } from './crdt';
import type { DeviceMark, DeviceMarks } from './marks';
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

  /** Between `keep` and `remove`: the texts are not written again yet. */
  private pending = false;

  /**
   * `marks` as an ingest notes what it applies, except, while this copy has not written its texts again, for the id it
   * left: its own mark there names the record it gave way on, which its next open needs to find the fork again.
   */
  holding(marks: DeviceMarks, left: string | undefined): Pick<DeviceMarks, 'get' | 'note'> {
    if (!this.pending || left === undefined) return marks;
    return { get: (dev) => marks.get(dev), note: (dev, seq, tag) => (dev === left ? undefined : marks.note(dev, seq, tag)) };
  }

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
  async keep(state: SyncState, blobs: BlobIndex, own: DeviceFolder | undefined, from: number, mark: DeviceMark | undefined, forks: string[]): Promise<void> {
    this.lines.push(...forks.filter((f) => f.startsWith('this computer')));
    const me = own?.device;
    /** Per memory (file id): the newest version this copy wrote on its branch, and where it is. */
    const newest = new Map<string, { h: Hlc; b: BlobRef2; w?: Provenance | undefined; p?: string | undefined }>();
    const offer = (fid: string, v: { h: Hlc; b: BlobRef2; w?: Provenance | undefined; p?: string | undefined }) => {
      const have = newest.get(fid);
      if (!have || compareHlc(v.h, have.h) > 0) newest.set(fid, { ...v, p: v.p ?? have?.p });
      else if (!have.p && v.p) have.p = v.p;
    };
    // What its state holds of that branch (applied as it wrote it)...
    for (const [fid, f] of state.files) {
      for (const [vid, rec] of f.versions) {
        const at = parseVid(vid);
        if (me !== undefined && at?.dev === me && at.seq !== undefined && at.seq >= from) offer(fid, rec);
      }
    }
    // ...and its records of that branch in the folder, which a load may not have applied (the other copy's record at
    // the same seq taken instead): those it wrote in this run, and the one its mark names.
    const ours = (r: RecInfo) => this.ownTags.get(r.seq!) === r.tag || (mark !== undefined && r.seq === mark.seq && r.tag === mark.tag);
    for (const x of own?.segments ?? []) {
      for (const r of x.records) {
        if (r.seq === undefined || r.seq < from || !ours(r)) continue;
        const op = r.meta.op;
        for (const put of op.t === 'put' ? [op] : op.t === 'batch' ? op.ops.filter((o) => o.t === 'put') : []) {
          offer(put.f, { h: r.meta.h, b: put.b, w: put.w, p: put.p });
        }
      }
    }
    for (const [fid, v] of newest) {
      // A memory made on the branch is named by a vid the other copy also used: its path is the one its own creating
      // record gives, never what the state holds under that id (the other copy's file, after a load or a rebuild).
      const at = parseVid(fid);
      const forked = at !== undefined && at.dev === me && at.seq !== undefined && at.seq >= from;
      let where: PathRec | undefined;
      if (!forked) for (const r of state.files.get(fid)?.path.values() ?? []) if (!where || compareHlc(r.h, where.h) > 0) where = r;
      const p = forked ? v.p : where?.p;
      if (!p) {
        this.redoLost++;
        continue;
      }
      try {
        this.redo.push({ path: p, text: await blobs.read('blobs', v.b, p), ...(v.w ? { by: v.w } : {}) });
      } catch {
        this.redoLost++;
      }
    }
    for (const [seq, tag] of this.ownTags) if (seq >= from) this.dropped.set(seq, tag);
    if (mark) this.dropped.set(mark.seq, mark.tag);
    this.pending = true;
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
      // (An older key epoch's file is in another folder: left to the close of that epoch, epochs.ts.)
      if (x.ep) continue;
      const ops = x.records.filter((r) => r.seq !== undefined);
      if (ops.length && ops.every((r) => this.dropped.get(r.seq!) === r.tag)) await fsx.unlink(path.join(dir, x.name)).catch(() => undefined);
    }
    this.pending = false;
  }
}
