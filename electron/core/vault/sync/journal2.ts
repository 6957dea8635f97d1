/**
 * This device's own journal in format v2 (docs/sync-design.md §1, §2.2):
 * segments `devices/<me>/<ep>/j-<firstSeq>-<rand>`, appended to on an O_DSYNC
 * handle (or with an fdatasync where that flag is missing), so a record is on
 * disk when its write returns, exactly as v1's journal. A segment takes at
 * most `records` records or `bytes` bytes; before the next one starts, the
 * old one ends with an `ack`, so every record of a closed segment is
 * confirmed (§2.5) by a later record of its own file.
 *
 * Only the device's own last segment is ever truncated (a torn record its own
 * crash left), and only here.
 */
import path from 'node:path';
import { io } from '../files';
import type { VaultFile, VaultFs } from '../fsio';
import { DEVICES_DIR, deviceDir, newName } from './layout';
import type { Op2, RecordMeta } from './op';
import { SEG2_HEADER, type SegmentCodec2, type SegmentId } from './records2';
import { recordTag, type FileScan } from './scan';

/** Records and bytes per segment (§1: small, for the sync engines). */
export const SEGMENT_RECORDS = 256;
export const SEGMENT_BYTES = 1024 * 1024;

interface Open {
  name: string;
  fh: VaultFile;
  size: number;
  records: number;
  /** The frontier the last record of this segment carried (undefined before its first record). */
  dep: Map<string, number> | undefined;
  lastAck: boolean;
}

/** Where an appended record lies. */
export interface Placed {
  file: string;
  pos: number;
  blobAt: number;
  /** The record's tag (scan.ts `recordTag`). */
  tag: string;
}

export class OwnJournal {
  private cur: Open | undefined;
  /** Set when the open segment cannot be appended to safely: the next append starts a new one. */
  private broken = false;
  private made = false;
  /** Records appended by this journal object (what a close or checkpoint needs to know). */
  appended = 0;

  constructor(
    private readonly fsx: VaultFs,
    private readonly root: string,
    private readonly codec: SegmentCodec2,
    readonly device: string,
    private readonly epoch: string,
    private readonly limits = { records: SEGMENT_RECORDS, bytes: SEGMENT_BYTES },
  ) {}

  get dir(): string {
    return path.join(this.root, deviceDir(this.device, this.epoch));
  }

  private seg(name: string): SegmentId {
    return { device: this.device, epoch: this.epoch, name };
  }

  /** The segment taking appends, if one is open. */
  get current(): string | undefined {
    return this.cur?.name;
  }

  /**
   * Continues after the last own segment as scanned (`last`): cuts off a torn
   * record its crash left (never acknowledged: its write had not returned) and
   * appends after its last whole record. A damaged one is left as it is and a
   * new segment starts at the next append.
   */
  async resume(last: FileScan | undefined): Promise<void> {
    await this.close();
    this.broken = false;
    if (!last) return;
    this.made = true;
    // A damaged segment, or one whose header its crash cut short, is left as it is.
    if (last.damage.length || last.unknown || last.size < SEG2_HEADER) {
      this.broken = true;
      return;
    }
    const end = last.records.at(-1)?.end ?? SEG2_HEADER;
    await io('errors:io.action.openJournal', async () => {
      const fh = await this.fsx.open(path.join(this.dir, last.name), 'journal');
      if (last.size > end || last.torn) {
        await fh.truncate(end);
        await fh.sync();
      }
      const dep = last.records.length ? new Map(Object.entries(last.records.at(-1)!.dep)) : undefined;
      this.cur = { name: last.name, fh, size: end, records: last.records.length, dep, lastAck: last.records.at(-1)?.meta.op.t === 'ack' };
    });
  }

  /** Makes the folder `devices/<me>/<ep>/` durably (the first write of this device in this epoch). */
  private async makeDir(): Promise<void> {
    if (this.made) return;
    const devices = path.join(this.root, DEVICES_DIR);
    const mine = path.join(devices, this.device);
    await this.fsx.mkdir(this.dir);
    await this.fsx.syncDir(this.root);
    await this.fsx.syncDir(devices);
    await this.fsx.syncDir(mine);
    this.made = true;
  }

  private async start(nextSeq: number): Promise<void> {
    await this.makeDir();
    const name = newName('j', nextSeq);
    const file = path.join(this.dir, name);
    const fh = await this.fsx.open(file, 'journal-new');
    try {
      const header = this.codec.header(this.seg(name));
      await fh.write(header, 0);
      await fh.sync();
      await this.fsx.syncDir(this.dir);
    } catch (e) {
      // A full disk: no empty or torn segment is left behind (others would wait for its records for ever).
      await fh.close().catch(() => undefined);
      await this.fsx.unlink(file).catch(() => undefined);
      throw e;
    }
    this.cur = { name, fh, size: SEG2_HEADER, records: 0, dep: undefined, lastAck: false };
    this.broken = false;
  }

  /**
   * Appends one record (with its inline blob) and returns where it lies once
   * it is on disk. `frontier` is what this device has applied of the others:
   * the record carries what changed in it since the segment's last record.
   */
  async append(meta: Omit<RecordMeta, 'dep'>, frontier: ReadonlyMap<string, number>, nextSeq: number, blob?: Uint8Array): Promise<Placed> {
    return io('errors:io.action.saveChange', async () => {
      const c = this.cur;
      if (!c || this.broken || c.records >= this.limits.records || c.size >= this.limits.bytes) await this.rollOver(nextSeq);
      const open = this.cur!;
      const dep: Record<string, number> = {};
      for (const [dev, n] of frontier) if (dev !== this.device && open.dep?.get(dev) !== n) dep[dev] = n;
      const full: RecordMeta = { ...meta, ...(Object.keys(dep).length ? { dep } : {}) } as RecordMeta;
      const pos = open.size;
      const { bytes, blobAt } = this.codec.encode(this.seg(open.name), pos, full, blob);
      await this.write(open, bytes);
      open.dep = new Map([...(open.dep ?? []), ...Object.entries(dep)]);
      open.lastAck = meta.op.t === 'ack';
      this.appended++;
      return { file: open.name, pos, blobAt, tag: recordTag(bytes.subarray(12, blobAt - pos)) };
    });
  }

  private async write(open: Open, bytes: Uint8Array): Promise<void> {
    try {
      if ((await open.fh.write(bytes, open.size)) !== bytes.length) throw new Error('short write');
      if (!open.fh.dsync) await open.fh.datasync();
    } catch (e) {
      // Part of the record may be stored: cut it off, or a later record would follow garbage.
      await open.fh.truncate(open.size).catch(() => (this.broken = true));
      throw e;
    }
    open.size += bytes.length;
    open.records++;
  }

  /** Ends the open segment with an ack (so its records are confirmed) and starts a new one. */
  private async rollOver(nextSeq: number): Promise<void> {
    const c = this.cur;
    if (c && !this.broken && !c.lastAck && c.records > 0) {
      const { bytes } = this.codec.encode(this.seg(c.name), c.size, { h: [0, 0], at: 0, op: { t: 'ack' } });
      await this.write(c, bytes);
    }
    await this.close();
    await this.start(nextSeq);
  }

  /**
   * True when the open segment's file at its name is not the one this journal appends to (missing, or of another size):
   * a restore or a sync engine wrote another copy over it. The journal then starts a new segment at the next append.
   * Of the same size, it is appended to at its name from now on (a copy of it written over it is a new file: the handle
   * would lead to the old one, which no name leads to any more).
   */
  async replacedOnDisk(): Promise<boolean> {
    const c = this.cur;
    if (!c || this.broken) return false;
    const file = path.join(this.dir, c.name);
    const st = await this.fsx.stat(file).catch(() => undefined);
    if (!st || st.size !== c.size) {
      this.broken = true;
      return true;
    }
    const fh = await io('errors:io.action.openJournal', () => this.fsx.open(file, 'journal'));
    await c.fh.close().catch(() => undefined);
    c.fh = fh;
    return false;
  }

  /** True when the last record appended is not an ack: an ack would confirm it. */
  get unconfirmed(): boolean {
    return this.cur !== undefined && !this.cur.lastAck && this.cur.records > 0;
  }

  /** Appends an ack when the last record needs one (§2.5). */
  async ack(h: RecordMeta['h'], at: number, frontier: ReadonlyMap<string, number>, nextSeq: number): Promise<void> {
    if (!this.unconfirmed || this.broken || (await this.replacedOnDisk())) return;
    await this.append({ h, at, op: { t: 'ack' } as Op2 }, frontier, nextSeq);
  }

  /** Starts a new segment at the next append (after a checkpoint, so the closed ones may be compacted). */
  async seal(h: RecordMeta['h'], at: number, frontier: ReadonlyMap<string, number>, nextSeq: number): Promise<void> {
    await this.ack(h, at, frontier, nextSeq);
    await this.close();
  }

  /** Closes the open segment; one that holds no whole record (its first append failed) is removed, not left to wait on. */
  async close(): Promise<void> {
    const c = this.cur;
    this.cur = undefined;
    await c?.fh.close().catch(() => undefined);
    if (c && c.records === 0) await this.fsx.unlink(path.join(this.dir, c.name)).catch(() => undefined);
  }
}
