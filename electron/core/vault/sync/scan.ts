/**
 * Reading one device's folder (docs/sync-design.md §2.5, §5): every complete
 * record of every journal segment, with where it lies, whether it is
 * confirmed (a later record of the same segment exists, or a partial one: an
 * append only starts once the one before is durable), and the frontier it
 * depends on. Nothing is written here: another device's file is never
 * truncated or removed, however it looks. A file unchanged since the last
 * scan (same size and time) is not read again.
 */
import path from 'node:path';
import { hash, toHex } from '../crypto';
import type { VaultFs } from '../fsio';
import { deviceDir, parseFileName } from './layout';
import { isKeysFile } from './epochs';
import { seqsOf, type RecordMeta } from './op';
import { SEG2_HEADER, type SegmentCodec2, type SegmentId } from './records2';

/** One complete, authentic record. */
export interface RecInfo {
  /** The first seq it takes, and how many (0 for ack, blob, reloc). */
  seq: number | undefined;
  count: number;
  meta: RecordMeta;
  file: string;
  pos: number;
  /** Where the next record starts. */
  end: number;
  /** A hash of its sealed meta: tells two different records at one seq apart (the high-water mark's `mac8`). */
  tag: string;
  confirmed: boolean;
  /** The writer's frontier when it wrote this record (the segment's dep fields folded up to here). */
  dep: Record<string, number>;
  /** Where its inline blob lies in the file, if it has one. */
  blobAt: number | undefined;
}

export interface FileScan {
  name: string;
  size: number;
  mtime: number;
  records: RecInfo[];
  /** The file ends inside a record: still being written or still arriving. */
  torn: boolean;
  /** Authentication or framing failures (damage). */
  damage: string[];
  /** A record of a shape this build does not know (a newer build wrote it). */
  unknown: boolean;
  /** The older key epoch whose folder holds it (undefined: the current one; store2.ts `scanAll`). */
  ep?: string;
}

/** What a device's folder holds, as last scanned. */
export interface DeviceFolder {
  device: string;
  segments: FileScan[];
  /** Checkpoint names, newest (highest seq) first. */
  checkpoints: string[];
  packs: string[];
  /** Files that could not be read now (a placeholder of a cloud drive): waiting. */
  unreadable: string[];
  /** Checkpoints and packs in an older key epoch's folder, with that epoch (store2.ts `scanAll`). */
  old?: Map<string, string>;
  /** Keys files in this epoch's folder (epochs.ts). */
  keys?: string[];
}

const isWaitError = (e: unknown) => ['EIO', 'EAGAIN', 'EBUSY', 'ETIMEDOUT', 'EWOULDBLOCK'].includes((e as NodeJS.ErrnoException).code ?? '');

/** Scans device folders, keeping what it read of each file until that file changes. */
export class FolderScanner {
  private readonly cache = new Map<string, FileScan>();

  constructor(
    private readonly fsx: VaultFs,
    private readonly root: string,
    private readonly codec: SegmentCodec2,
    private readonly epoch: string,
  ) {}

  /** The relative path of a file of `device`. */
  rel(device: string, name: string): string {
    return path.join(deviceDir(device, this.epoch), name);
  }

  async scan(device: string): Promise<DeviceFolder> {
    const dir = path.join(this.root, deviceDir(device, this.epoch));
    const out: DeviceFolder = { device, segments: [], checkpoints: [], packs: [], unreadable: [] };
    const names = await this.fsx.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (isKeysFile(name)) (out.keys ??= []).push(name);
      const f = parseFileName(name) ?? segmentCopy(name);
      if (!f) continue;
      if (f.kind === 'c') out.checkpoints.push(name);
      else if (f.kind === 'p') out.packs.push(name);
      else {
        try {
          const s = await this.file(device, dir, name, f.name);
          if (s) out.segments.push(s);
        } catch (e) {
          if (!isWaitError(e)) throw e;
          out.unreadable.push(name);
        }
      }
    }
    out.checkpoints.sort().reverse();
    out.segments.sort((a, b) => (a.name < b.name ? -1 : 1));
    return out;
  }

  /** Forgets a file's scan (its file was replaced or removed). */
  forget(device: string, name: string): void {
    this.cache.delete(this.rel(device, name));
  }

  /** `segment`: the segment's own name (its records are sealed under it), when `name` is a sync engine's copy of it. */
  private async file(device: string, dir: string, name: string, segment = name): Promise<FileScan | undefined> {
    const key = this.rel(device, name);
    const full = path.join(dir, name);
    const st = await this.fsx.stat(full).catch(() => undefined);
    // Not a regular file (a folder, a FIFO, a link to a device: anyone writing to the folder can leave one under any
    // name): nothing in it is a record, and reading it would fail or hang.
    if (!st || !st.isFile) return undefined;
    const known = this.cache.get(key);
    if (known && known.size === st.size && known.mtime === st.mtimeMs) return known;
    let bytes: Uint8Array;
    try {
      bytes = await this.fsx.readFile(full);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const s = scanSegment(this.codec, { device, epoch: this.epoch, name: segment }, bytes, key, name);
    // A copy counts for the records in it that authenticate, nothing more: one cut short or not a segment at all
    // (any file may carry such a name) is neither damage nor something still arriving.
    if (name !== segment) {
      s.torn = false;
      s.damage = [];
    }
    s.mtime = st.mtimeMs;
    this.cache.set(key, s);
    return s;
  }
}

/** Reads one segment's bytes: its complete authentic records, confirmation and folded deps. */
export function scanSegment(codec: SegmentCodec2, seg: SegmentId, bytes: Uint8Array, shown: string, file = seg.name): FileScan {
  const out: FileScan = { name: file, size: bytes.length, mtime: 0, records: [], torn: false, damage: [], unknown: false };
  if (bytes.length < SEG2_HEADER) {
    // Only part of the header yet: still arriving.
    out.torn = true;
    return out;
  }
  if (!codec.headerOk(seg, bytes)) {
    out.damage.push(`${shown}: header damaged or misplaced`);
    return out;
  }
  const dep: Record<string, number> = {};
  for (const item of codec.scan(seg, bytes)) {
    if (item.kind === 'torn') out.torn = true;
    else if (item.kind === 'broken') out.damage.push(`${shown}: unreadable record at offset ${item.pos}`);
    else if (!item.meta) {
      if (item.bad === 'shape') out.unknown = true;
      else out.damage.push(`${shown}: record at offset ${item.pos} fails authentication`);
      // Nothing after a record that cannot be read is applied: its seq might be the one missing.
      break;
    } else {
      Object.assign(dep, item.meta.dep ?? {});
      const count = seqsOf(item.meta.op);
      const sealedEnd = item.blobAt;
      out.records.push({
        seq: count ? item.meta.s : undefined,
        count,
        meta: item.meta,
        file,
        pos: item.pos,
        end: item.next,
        tag: recordTag(bytes.subarray(item.pos + 12, sealedEnd)),
        confirmed: false,
        dep: { ...dep },
        blobAt: 'b' in item.meta.op ? item.blobAt : undefined,
      });
    }
  }
  // A record is confirmed by any later record of its segment, whole or partial.
  out.records.forEach((r, i) => (r.confirmed = i < out.records.length - 1 || out.torn));
  return out;
}

/** A record's tag, from its sealed metadata: what tells two records at one seq apart (marks.ts). */
export const recordTag = (sealed: Uint8Array): string => toHex(hash(sealed)).slice(0, 16);

/**
 * A sync engine's copy of a journal segment (docs/sync-design.md §12.9): `j-<seq>-<rand>` followed by the engine's
 * mark (Syncthing `.sync-conflict-…`, Dropbox ` (… conflicted copy …)`, OneDrive `-HOST`, iCloud ` 2`). Two copies of
 * one computer that wrote on from one segment (a clone, or a restore) leave one such copy: its records are read like
 * the segment's (sealed under the segment's own name, so nothing else authenticates), which lets the copy that gives
 * way still find what it wrote there.
 */
function segmentCopy(name: string): { kind: 'j'; name: string } | undefined {
  const m = /^(j-[0-9a-f]{12}-[0-9a-f]{8})./.exec(name);
  const base = m && parseFileName(m[1]!);
  return base && base.kind === 'j' ? { kind: 'j', name: m[1]! } : undefined;
}

/** The highest seq of the records in a device's own folder (0 if none). */
export function topSeq(own: DeviceFolder): number {
  let top = 0;
  for (const s of own.segments) for (const r of s.records) if (r.seq !== undefined) top = Math.max(top, r.seq + r.count - 1);
  return top;
}

/** The highest own seq a device's folder holds: in its records, or covered by a checkpoint (`c-<seq>`). */
export function filesEnd(own: DeviceFolder): number {
  return Math.max(topSeq(own), ...own.checkpoints.map((c) => parseInt(c.slice(2, 14), 16)));
}

/** The highest seq of device `me` that another device's records name (they depend on it: they saw it). */
export function seenBy(folders: ReadonlyMap<string, DeviceFolder>, me: string): number {
  let seen = 0;
  for (const [dev, f] of folders) {
    if (dev === me) continue;
    for (const s of f.segments) for (const r of s.records) seen = Math.max(seen, r.dep[me] ?? 0);
  }
  return seen;
}
