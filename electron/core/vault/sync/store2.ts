/**
 * The multi-device store of format v2 (docs/sync-design.md §4, §2.5): this
 * device's own journal and checkpoints under `devices/<me>/<ep>/`, and the
 * joined state of every device's files. `load` joins this device's newest
 * checkpoint (the previous one if it fails), the v1 files read as the frozen
 * pseudo-device L, and every device's journal tail; `ingest` reads the device
 * folders again and applies what has become visible. Every own change is on
 * disk before `append` returns. Nothing outside this device's own folder is
 * ever written, truncated or removed, and in it only names this format writes.
 * Checkpoints and compaction are in compact2.ts, reading checkpoints in ckpt-read.ts.
 */
import path from 'node:path';
import type { StoreKeys } from '../blobs';
import { io } from '../files';
import type { VaultFs } from '../fsio';
import { readOnlyError, VaultError } from '../types';
import { BlobIndex } from './blobs2';
import { CheckpointReader } from './ckpt-read';
import { emptyState, joinInto, maxStamp, opState, type SyncState } from './crdt';
import { Clock, type Hlc } from './hlc';
import { formatVid, type Vid } from './ids';
import { GiveWay } from './give-way';
import { OwnJournal, SEGMENT_BYTES, SEGMENT_RECORDS } from './journal2';
import { deviceDir, listDevices, parseFileName, removeOwnTemps } from './layout';
import type { DeviceMarks } from './marks';
import { seqsOf, type Op2 } from './op';
import { SegmentCodec2 } from './records2';
import { filesEnd, FolderScanner, seenBy, topSeq, type DeviceFolder, type FileScan } from './scan';
import type { OldEpoch } from './epochs';
import { EpochFolders } from './epoch-folders';
import { applyVisible, ownForkLine, type IngestReport } from './visible';
import { m, type LocalMessage } from '../../i18n/message';

export interface Store2Options {
  fs: VaultFs;
  dir: string;
  vaultId: Uint8Array;
  keys: StoreKeys;
  /** The key epoch (32 hex): vault.json's `manifest`. */
  epoch: string;
  /** This device's id; undefined until its first write (a reader that never wrote has none). */
  device: string | undefined;
  readOnly: boolean;
  marks: DeviceMarks;
  /** Older key epochs whose keys are known (epochs.ts): their files are read too. */
  older?: OldEpoch[];
  /** Records per segment (tests pass small numbers). */
  segmentRecords?: number;
  now?: () => number;
}

/** A sealed blob on its way into a record. */
export interface Sealed2 {
  bytes: Uint8Array;
}

export class Store2 extends CheckpointReader {
  state: SyncState = emptyState();
  clock: Clock;
  readonly codec: SegmentCodec2;
  readonly blobs: BlobIndex;
  readonly scanner: FolderScanner;
  device: string | undefined;
  journal: OwnJournal | undefined;
  /** The last scan of each device folder. */
  folders = new Map<string, DeviceFolder>();
  /** The last ingest's classification (waiting, damage, rollback, forks). */
  report: IngestReport = { applied: 0, waiting: [], damage: [], rollback: [], forks: [], newer: false };
  /** Problems found at load (a damaged own checkpoint). */
  readonly problems: string[] = [];
  /** The seq this device's next op takes. */
  nextSeq = 1;
  /** Own records since the last own checkpoint. */
  sinceCheckpoint = 0;
  /** Blob bytes of the own records since the last own checkpoint (session2.ts `journalFull`). */
  bytesSinceCheckpoint = 0;
  /** Bytes of the live blobs the newest own checkpoint indexes. */
  liveAtCheckpoint = 0;
  /** The v1 part's generation (0 without one). */
  v1Gen = 0;
  /** A v1 part is there under an older key not known yet (its keys file still arriving): its generation is not known. */
  v1Hidden = false;
  /** Notices for the user (this device's files were older than others had seen). */
  readonly notices: LocalMessage[] = [];
  private readonly now: () => number;

  constructor(readonly o: Store2Options) {
    super();
    this.now = o.now ?? Date.now;
    this.clock = new Clock([0, 0], this.now);
    this.codec = new SegmentCodec2(o.vaultId, o.keys.journal);
    this.epochs = new EpochFolders(o.fs, o.dir, o.vaultId, o.epoch, o.keys, o.older ?? []);
    this.blobs = new BlobIndex(o.fs, o.dir, o.vaultId, o.keys, o.epoch, this.epochs.older);
    this.scanner = new FolderScanner(o.fs, o.dir, this.codec, o.epoch);
    this.device = o.device;
  }

  /** This epoch's folders and those of every older one whose key is known, read as one (epoch-folders.ts). */
  readonly epochs: EpochFolders;

  /** Older key epochs whose files are read too (epochs.ts). */
  get older(): OldEpoch[] {
    return this.epochs.older;
  }

  /** Device `dev`'s folders of every epoch read, as one (epoch-folders.ts). */
  scanAll(dev: string): Promise<DeviceFolder> {
    return this.epochs.scanAll(this.scanner, dev);
  }

  /** The keys of epoch `ep` (undefined: this one). */
  keysOf(ep: string | undefined): StoreKeys {
    return this.epochs.keysOf(ep);
  }

  get fs(): VaultFs {
    return this.o.fs;
  }

  /** The folder of `dev`'s files, absolute. */
  folderOf(dev: string): string {
    return path.join(this.o.dir, deviceDir(dev, this.o.epoch));
  }

  /**
   * Loads the vault: the v1 part (given as its state, if any), this device's
   * own newest checkpoint, then every device's journal tail. Tidies only this
   * device's own temp files, and only when writing.
   */
  async load(v1: SyncState | undefined): Promise<void> {
    this.v1State = v1;
    if (v1) joinInto(this.state, v1);
    const me = this.device;
    if (me && !this.o.readOnly) {
      await io('errors:io.action.readVault', async () => {
        await removeOwnTemps(this.fs, this.o.dir, me);
        await removeOwnTemps(this.fs, this.folderOf(me), me);
      });
    }
    if (me) {
      const own = await io('errors:io.action.readVault', () => this.scanAll(me));
      this.folders.set(me, own);
      let joined = false;
      for (const name of own.checkpoints.slice(0, 2)) {
        const c = await this.readCheckpoint(me, name);
        if (c) {
          this.adopt(me, c);
          this.learnt.add(`${me}/${name}`);
          this.liveAtCheckpoint = 0;
          for (const l of c.index.values()) this.liveAtCheckpoint += l.len;
          joined = true;
          break;
        }
        this.problems.push(`${deviceDir(me, this.o.epoch)}/${name}: this computer's checkpoint fails authentication; the previous one was used`);
      }
      if (!joined && own.checkpoints.length) this.problems.push(`${deviceDir(me, this.o.epoch)}: no readable checkpoint of this computer`);
    }
    await this.ingest();
    this.clock = new Clock(maxStamp(this.state), this.now);
    // (Not when the ingest found this computer's records replaced by another copy's: it then writes on under a new id.)
    if (this.device) await this.resumeOwn();
  }

  /**
   * Reads every device folder again and applies what became visible.
   * Returns the number of records and checkpoints newly applied.
   */
  async ingest(): Promise<number> {
    const devices = new Set(await io('errors:io.action.readVault', () => listDevices(this.fs, this.o.dir)));
    if (this.device) devices.add(this.device);
    const folders = new Map<string, DeviceFolder>();
    await io('errors:io.action.readVault', async () => {
      for (const dev of [...devices].sort()) {
        const f = await this.scanAll(dev);
        folders.set(dev, f);
        for (const s of f.segments) for (const r of s.records) if (r.blobAt !== undefined && 'b' in r.meta.op) this.blobs.add(r.meta.op.b.id, { dev, file: r.file, off: r.blobAt, len: r.meta.op.b.len, ...(s.ep ? { ep: s.ep } : {}) });
      }
    });
    // A keys file not read yet (another computer rotated, or learnt a rival's key): its older epochs are read too.
    if (await this.epochs.learn(folders)) return this.ingest();
    this.folders = folders;
    const replaced = this.giveWay.replaced(this.device ? folders.get(this.device) : undefined);
    const wentBack = this.ownWentBack(folders);
    this.overtaken = this.ownSeen(folders) >= this.nextSeq;
    this.report = await applyVisible(this.giveWay.without(folders, this.left), {
      state: this.state,
      own: this.device,
      marks: this.giveWay.holding(this.o.marks, this.left),
      clock: this.clock,
      joinCheckpoint: (dev, need) => this.joinCheckpoint(dev, need),
    });
    if (replaced !== undefined) {
      this.report.forks.push(ownForkLine(this.device!, replaced));
      this.report.ownFork = true;
    }
    if (this.report.ownFork && this.device && !this.o.readOnly) {
      this.notices.push(m('errors:notice.ownReplaced'));
      const me = this.device;
      const mark = this.o.marks.get(me);
      await this.giveWay.keep(this.state, this.blobs, folders.get(me), replaced ?? mark?.seq ?? this.nextSeq, replaced === undefined ? mark : undefined, this.report.forks);
      // Its own mark, naming the record it gives way on, stays until its texts are written again (`removeDropped`):
      // if it stops before, its next open finds the fork again by it.
      await this.rehome();
      await this.rebuild();
    } else if (wentBack && this.device && !this.o.readOnly) {
      // The own files went back under this open vault (a restore, a sync engine's rewind): what it applied of its own
      // beyond them is in no file, and writing on as this id would leave a gap no other computer can ever fill.
      this.notices.push(m('errors:notice.ownFilesOlder'));
      await this.rehome();
      await this.rebuild();
    }
    for (const f of this.giveWay.lines) if (!this.report.forks.includes(f)) this.report.forks.push(f);
    void this.o.marks.flush();
    return this.report.applied;
  }

  /**
   * True when this device's own files (records, checkpoint names) end before what its state holds of its own: they
   * went back while it was open. Not while a file of them cannot be read now (a cloud drive's placeholder).
   */
  private ownWentBack(folders: ReadonlyMap<string, DeviceFolder>): boolean {
    const me = this.device;
    const own = me ? folders.get(me) : undefined;
    if (!me || this.o.readOnly || own?.unreadable.length) return false;
    return (this.state.frontier.get(me) ?? 0) > (own ? filesEnd(own) : 0);
  }

  /**
   * True after an ingest found a seq of this device at or past the next one it would take: its own files were put
   * back from an older copy while it was open (a restore), and what it wrote before came back from another computer.
   * The next write must first take seqs past them (`resumeOwn`), or it would reuse one: a fork.
   */
  overtaken = false;

  /** The highest seq of this device in `folders`: its own records, and what every other device's records name. */
  private ownSeen(folders: ReadonlyMap<string, DeviceFolder>): number {
    const me = this.device;
    if (!me) return 0;
    const own = folders.get(me);
    return Math.max(own ? topSeq(own) : 0, seenBy(folders, me));
  }

  /**
   * Continues this device's own journal after its last segment on disk (a
   * sibling process of this device may have written it), and takes the next
   * seq past every seq of this device anyone has seen, so no seq is ever used
   * for two ops.
   */
  async resumeOwn(): Promise<void> {
    const me = this.device!;
    const own = this.folders.get(me) ?? (await io('errors:io.action.readVault', () => this.scanAll(me)));
    const max = Math.max(this.state.frontier.get(me) ?? 0, filesEnd(own));
    // What this computer wrote before, as its state folder remembers it (`marks`), and as the other computers saw it.
    const seen = Math.max(max, seenBy(this.folders, me), this.o.marks.get(me)?.seq ?? 0);
    if (seen > max) {
      this.notices.push(m('errors:notice.ownFilesOlder'));
      if (!this.o.readOnly) return this.rehome();
    }
    this.nextSeq = seen + 1;
    this.overtaken = false;
    // Own records not yet in an own checkpoint: a checkpoint is due once they reach the limit, across opens too.
    const covered = own.checkpoints.length ? parseInt(own.checkpoints[0]!.slice(2, 14), 16) : 0;
    this.sinceCheckpoint = 0;
    this.bytesSinceCheckpoint = 0;
    for (const s of own.segments) for (const r of s.records) if (r.seq !== undefined && r.seq > covered) this.sinceCheckpoint++;
    // (A blob record has no seq: counted by the segment it lies in, whole segments past the checkpoint.)
    for (const s of own.segments) if (!s.ep && parseInt(s.name.slice(2, 14), 16) > covered) for (const r of s.records) if ('b' in r.meta.op) this.bytesSinceCheckpoint += r.meta.op.b.len;
    if (this.o.readOnly) return;
    const limits = { records: Math.min(SEGMENT_RECORDS, this.o.segmentRecords ?? SEGMENT_RECORDS), bytes: SEGMENT_BYTES };
    this.journal ??= new OwnJournal(this.fs, this.o.dir, this.codec, me, this.o.epoch, limits);
    // Appends go on after the record with the highest seq, so it is confirmed by the next one. Not simply after the
    // last name: a segment a crash cut short of its first op (only an ack) can share its first seq with the next.
    const top = (x: FileScan) => Math.max(0, ...x.records.map((r) => (r.seq === undefined ? 0 : r.seq + r.count - 1)));
    // (Only in this epoch's folder: an older epoch's files are read, never written again.)
    const segs = own.segments.filter((x) => x.size > 0 && !x.ep && parseFileName(x.name)).sort((a, b) => top(a) - top(b) || (a.name < b.name ? -1 : 1));
    await this.journal.resume(segs.at(-1));
  }

  /**
   * This computer's own files are older than what it wrote before (§7): its vault folder was put back from a backup
   * or an old disk image. Writing on under its id would take seqs again that its lost files used, or leave a gap its
   * own view could never fill. So it writes nothing more as that id: the old id becomes another computer's, read as
   * any other (what it wrote comes back from the computers that have it), and the next write mints a new id
   * (`left` says which one not to take again).
   */
  private async rehome(): Promise<void> {
    this.left = this.device;
    this.device = undefined;
    this.giveWay.forget();
    this.overtaken = false;
    await this.journal?.close();
    this.journal = undefined;
  }

  /** The v1 part's state, as loaded (`rebuild`). */
  protected v1State: SyncState | undefined;

  /**
   * The state again from the files alone, after this device found its own records replaced by another copy's
   * (give-way.ts): what it had applied of its own branch is in no file any more, and ops written on it would name
   * versions that mean something else on every other computer. The fork stays reported.
   */
  private async rebuild(): Promise<void> {
    this.state = emptyState();
    if (this.v1State) joinInto(this.state, this.v1State);
    this.learnt.clear();
    await this.ingest();
    this.report.applied = Math.max(1, this.report.applied);
  }

  /** A copy of this computer that gives way to another (give-way.ts). */
  readonly giveWay = new GiveWay();

  /** Removes the files that held only the records this copy gave way on (give-way.ts `remove`). */
  async removeDropped(): Promise<void> {
    const f = this.left === undefined ? undefined : this.folders.get(this.left);
    if (!f || this.o.readOnly) return;
    await this.giveWay.remove(this.fs, this.folderOf(this.left!), f);
    // Its mark names a record it no longer follows: noted again from what it applies from now on.
    this.o.marks.drop(this.left!);
    void this.o.marks.flush();
  }

  /** The id this computer wrote as until it found its own files older than what it had written (`rehome`). */
  left: string | undefined;

  /** Starts this device's own journal (its first write in this vault: the device id was just minted). */
  async becomeDevice(device: string): Promise<void> {
    this.device = device;
    await this.resumeOwn();
  }

  /** The vid the next own op will take. */
  nextVid(): Vid {
    return formatVid(this.device!, this.nextSeq);
  }

  /** Appends one own op (with its inline blob), durably, and applies it. Returns its first vid and stamp. */
  async append(op: Op2, blob?: Uint8Array): Promise<{ vid: Vid; h: Hlc }> {
    if (this.o.readOnly) throw readOnlyError();
    if (this.report.newer) throw newerBuild();
    const j = this.journal;
    if (!j || !this.device) throw new Error('Store2.append: no own journal');
    const count = seqsOf(op);
    const seq = this.nextSeq;
    const h = count ? this.clock.tick() : this.clock.current();
    const at = Math.floor(this.now());
    if (await j.replacedOnDisk()) {
      // Its open segment is no longer the file at its name (a restore or a sync engine wrote over it): appending to the
      // handle would put the record where no one reads it. Read the folder again (it rehomes if it went back) and fail
      // this write; the next one goes on from what the files hold.
      await this.ingest();
      throw new VaultError('IO', m('errors:io.failed', { what: m('errors:io.action.saveChange') }));
    }
    const placed = await j.append({ ...(count ? { s: seq } : {}), h, at, op }, this.state.frontier, seq, blob);
    // Remembered in the state folder: a vault folder later put back from an older copy is told by it (`resumeOwn`).
    if (count) {
      this.o.marks.note(this.device, seq + count - 1, placed.tag);
      this.giveWay.wrote(seq, placed.tag);
    }
    if ('b' in op) this.blobs.add(op.b.id, { dev: this.device, file: placed.file, off: placed.blobAt, len: op.b.len });
    joinInto(this.state, opState({ dev: this.device, seq, h, at }, op, this.state.frontier));
    this.nextSeq += count;
    this.sinceCheckpoint++;
    if ('b' in op) this.bytesSinceCheckpoint += op.b.len;
    return { vid: count ? formatVid(this.device, seq) : '', h };
  }

  /** Confirms the own records written so far (§2.5): an `ack` if the last one needs it. */
  async ack(): Promise<void> {
    if (!this.journal || this.o.readOnly) return;
    await this.journal.ack(this.clock.current(), Math.floor(this.now()), this.state.frontier, this.nextSeq);
    void this.o.marks.flush();
  }

  /** Closes the own journal (its last records confirmed first when writable and `ack`: only while the lock is held). */
  async close(ack = true): Promise<void> {
    if (ack && this.journal && !this.o.readOnly) await this.ack().catch(() => undefined);
    await this.journal?.close();
    this.journal = undefined;
    await this.o.marks.flush();
    await this.blobs.v1?.store.close();
  }
}

export const newerBuild = (): VaultError =>
  new VaultError('INVALID', m('errors:vault.newerBuild'));
