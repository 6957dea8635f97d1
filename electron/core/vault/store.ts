/**
 * The encrypted files below vault.json (byte formats in records.ts): the
 * manifest (a snapshot of the whole State), its fallback copy, and segments.
 * The newest segment is the journal: each mutation appends one record holding
 * the manifest change and the new blob, durable when the write returns (O_DSYNC,
 * or an fdatasync where that flag is missing) — so a write costs
 * one sync whatever the vault's size. Now and then the manifest is rewritten
 * (a checkpoint) and a fresh journal segment begins; older segments stay as
 * immutable blob packs until no live blob points into them. The manifest
 * files are handled in manifest.ts; when to checkpoint and what to compact is
 * decided in checkpoint.ts.
 */
import path from 'node:path';
import { ID_BYTES, randomBytes, sameBytes, toHex } from './crypto';
import { BlobStore, liveSegments, liveSize, segmentFile, type SealedBlob, type StoreKeys } from './blobs';
import { CHECKPOINT_RECORDS, journalFull, sparseSegments } from './checkpoint';
import { io, readIfExists, removeTemps } from './files';
import { nodeFs, type VaultFile, type VaultFs } from './fsio';
import { Manifests } from './manifest';
import { SEG_HEADER, SegmentCodec } from './records';
import { replayFrom, replaySegment } from './replay';
import { State, type Op, type Snapshot } from './state';
import { readOnlyError, VaultError } from './types';
import { m } from '../i18n/message';

/** How a Store reaches the disk, and whether it may change it. */
export interface StoreOptions {
  fs?: VaultFs;
  /** Never write, rename, truncate or delete anything: reads only. */
  readOnly?: boolean;
}

/**
 * How many bytes before the journal's end a store remembers: the end of the last record it wrote or read (a
 * record's sealed parts end there, random-looking), so a catch-up can tell its journal from another file in its
 * place. No record and no segment header is shorter.
 */
const TAIL_BYTES = 32;

export class Store extends BlobStore {
  /** `tail`: the journal's last TAIL_BYTES bytes before `size` as this store wrote or read them (see catchUp). */
  private journal: { id: string; fh: VaultFile | undefined; size: number; records: number; tail: Uint8Array } | undefined;
  /** Problems found while loading: shown at unlock, listed by verify. */
  readonly problems: string[] = [];
  /** Segments the manifest lists (plus the journal); any other segment file is left over from an interrupted checkpoint or rotation. */
  private listed = new Set<string>();
  /** This key epoch's manifest, its fallback and a checkpoint's next one. */
  private readonly manifests: Manifests;
  /** True while checkpoint() moves live blobs out of sparse segments. */
  private compacting = false;
  /** Set when the journal's tail is unreadable: the next write starts a fresh segment instead of appending after it. */
  private mustCheckpoint = false;
  /** Live blob bytes at the last checkpoint or load: the journal may grow to twice this before it is compacted. */
  private liveBytes = 0;
  /** The journal the manifest this store last read or wrote names; the journal taking appends is another only after a failed checkpoint. */
  private manifestJournal: string | undefined;
  /**
   * False while vault.json names another key epoch (a rotation in progress):
   * nothing may then be collected, since the files it would remove are the
   * ones the vault still opens with.
   */
  named = true;

  private readonly codec: SegmentCodec;
  readonly readOnly: boolean;

  constructor(
    dir: string,
    vaultId: Uint8Array,
    keys: StoreKeys,
    manifestId: string,
    private readonly journalLimit = CHECKPOINT_RECORDS,
    opts: StoreOptions = {},
  ) {
    super(dir, vaultId, keys, opts.fs ?? nodeFs);
    this.codec = new SegmentCodec(vaultId, keys.journal);
    this.readOnly = opts.readOnly ?? false;
    this.manifests = new Manifests(this.fs, dir, vaultId, keys, manifestId);
  }

  /** Writes the first journal segment and manifest of a new vault (or of a rotation's new key epoch). */
  static async initialize(dir: string, vaultId: Uint8Array, keys: StoreKeys, manifestId: string, state: State, journalLimit?: number, opts: StoreOptions = {}): Promise<Store> {
    const store = new Store(dir, vaultId, keys, manifestId, journalLimit, opts);
    await io('errors:io.action.createFiles', async () => {
      await store.fs.mkdir(path.join(dir, 'segments'));
      await store.fs.syncDir(dir);
      await store.startJournal();
      await store.manifests.create(state.toSnapshot(store.journal!.id, []));
      store.manifestJournal = store.journal!.id;
    });
    return store;
  }

  /**
   * Decrypts the manifest and replays the journal. A checkpoint makes its new
   * manifest durable (as `.next`) before moving the current one aside, so a
   * missing manifest is either finished from `.next` (a crash between the two
   * renames) or damage: DAMAGED, never a silent step back to the previous
   * checkpoint, which would drop the newest changes unnoticed. A manifest that
   * is present but fails authentication is rebuilt from the previous
   * checkpoint's manifest and the journals written since, and reported.
   */
  async load(): Promise<State> {
    if (!this.readOnly) await io('errors:io.action.readVault', () => removeTemps(this.fs, this.dir));
    const snap = await this.manifests.read(this.manifests.path);
    const state = snap ? await this.resume(snap) : await this.loadFallback(snap);
    this.liveBytes = liveSize(state);
    return state;
  }

  private async loadFallback(snap: null | undefined): Promise<State> {
    const next = await this.manifests.read(this.manifests.nextPath);
    if (next) {
      // The checkpoint's new manifest was durable: finish its rename, then carry on from it.
      if (!this.readOnly && snap === undefined) await this.manifests.finishNext();
      const state = await this.resume(next);
      // A damaged manifest must never become the fallback.
      if (snap === null) this.manifests.good = false;
      return state;
    }
    const prev = snap === null ? await this.manifests.read(this.manifests.prevPath) : undefined;
    if (!prev) throw new VaultError('DAMAGED', m('errors:vault.manifestDamaged'), 'manifest');
    this.problems.push('manifest: damaged; the vault was rebuilt from the previous checkpoint and the journal');
    return this.recover(prev);
  }

  private async resume(snap: Snapshot): Promise<State> {
    this.manifests.good = true;
    this.manifestJournal = snap.journal;
    const state = State.fromSnapshot(snap);
    this.listed = new Set([...snap.segs, snap.journal]);
    await io('errors:io.action.readJournal', async () => {
      const file = path.join(this.dir, segmentFile(snap.journal));
      const bytes = await readIfExists(this.fs, file);
      if (!bytes) {
        this.problems.push(`${segmentFile(snap.journal)}: the journal is missing; recent changes may be lost`);
        this.mustCheckpoint = true;
        return;
      }
      const genBefore = state.gen;
      const end = this.replay(snap.journal, bytes, state);
      // A read-only open never opens a file for writing: its journal stays as found.
      const fh = this.readOnly ? undefined : await this.fs.open(file, 'journal');
      if (fh && end < bytes.length && !this.mustCheckpoint) {
        // A torn last record from an interrupted write: never acknowledged, so drop it.
        await fh.truncate(end);
        await fh.sync();
      }
      this.journal = { id: snap.journal, fh, size: end, records: state.gen - genBefore, tail: bytes.slice(end - TAIL_BYTES, end) };
    });
    return state;
  }

  /**
   * The previous checkpoint plus its journal, then every segment it does not
   * list, oldest first: the journal begun at the lost checkpoint (the only one
   * holding changes) and any leftovers of an interrupted one (relocations at
   * most). The next change writes a fresh manifest.
   */
  private async recover(prev: Snapshot): Promise<State> {
    const state = State.fromSnapshot(prev);
    const listed = new Set([...prev.segs, prev.journal]);
    const replayed = new Set<string>();
    this.mustCheckpoint = true;
    await io('errors:io.action.readJournal', async () => {
      const dir = path.join(this.dir, 'segments');
      const others = (await this.fs.readdir(dir)).filter((n) => !n.startsWith('.') && !listed.has(n));
      const byAge = await Promise.all(others.map(async (id) => ({ id, at: (await this.fs.stat(path.join(dir, id))).mtimeMs })));
      for (const id of [prev.journal, ...byAge.sort((a, b) => a.at - b.at).map((x) => x.id)]) {
        const bytes = await readIfExists(this.fs, path.join(dir, id));
        if (bytes) {
          this.replay(id, bytes, state);
          replayed.add(id);
        }
        listed.add(id);
      }
    });
    // Segments the rebuilt state still uses, and the journals it was rebuilt from; compacted ones may be gone.
    this.listed = new Set([...liveSegments(state), ...[...listed].filter((id) => replayed.has(id))]);
    return state;
  }

  /**
   * Brings `state` up to the disk when only the journal grew since this store
   * last looked (other processes appended to it): reads just the bytes past
   * its known end and applies their records; a torn last record, left by a
   * writer killed mid-append, is cut off as at load, so the next append goes
   * at the true end. Returns false when that is not enough — the manifest was
   * rewritten (someone checkpointed), the journal is not the manifest's, or
   * it needs a fresh segment anyway — and the caller loads afresh. Only with
   * the vault's lock held.
   */
  async catchUp(state: State): Promise<boolean> {
    const j = this.journal;
    const fh = j?.fh;
    if (this.readOnly || !j || !fh || this.mustCheckpoint || j.id !== this.manifestJournal || !this.manifests.identity) return false;
    if ((await this.manifests.identityOnDisk()) !== this.manifests.identity) return false;
    return io('errors:io.action.readJournal', async () => {
      const file = path.join(this.dir, segmentFile(j.id));
      const size = (await this.fs.stat(file)).size;
      // Shorter than what was written and seen: not growth. Loaded afresh, a lost change shows as a rollback.
      if (size < j.size) return false;
      // The file at the journal's name now, which may not be the one this store holds open: a restore or a sync
      // tool may have put another in its place. Appends go to the file there; and only if it ends, where this
      // store's view ended, with the bytes this store saw there is the rest a tail to read, else it loads afresh.
      const now = await this.fs.open(file, 'journal');
      let keep = false;
      try {
        const tail = new Uint8Array(size - j.size + TAIL_BYTES);
        const got = await now.read(tail, j.size - TAIL_BYTES);
        if (got < TAIL_BYTES || !sameBytes(tail.subarray(0, TAIL_BYTES), j.tail)) return false;
        const { end, damaged, records } = replayFrom(this.codec, j.id, tail.subarray(TAIL_BYTES, got), j.size, state, this.problems);
        if (damaged) this.mustCheckpoint = true;
        else if (end < j.size + got - TAIL_BYTES) {
          // Never acknowledged (its writer died mid-append): drop it, as load does.
          await now.truncate(end);
          await now.sync();
        }
        j.tail = tail.slice(end - j.size, end - j.size + TAIL_BYTES);
        j.size = end;
        j.records += records;
        keep = true;
        return true;
      } finally {
        if (keep) {
          await fh.close().catch(() => undefined);
          j.fh = now;
          // A blob read from the journal is read from the file there now too.
          await this.dropReader(j.id);
        } else await now.close().catch(() => undefined);
      }
    });
  }

  /** Applies a journal segment to `state` (see replay.ts); a damaged one forces a fresh segment at the next write. */
  private replay(segId: string, bytes: Uint8Array, state: State): number {
    const { end, damaged } = replaySegment(this.codec, segId, bytes, state, this.problems);
    if (damaged) this.mustCheckpoint = true;
    return end;
  }

  /**
   * Appends one change (and its blob) to the journal and syncs it. Returns the op
   * with its blob's location filled in; the caller applies it to the State only
   * after this resolves, so memory never runs ahead of the disk.
   */
  async append(state: State, op: Op, blob?: SealedBlob, sync = true): Promise<Op> {
    if (this.readOnly) throw readOnlyError();
    if (!this.compacting && this.named && this.dueForCheckpoint()) await this.checkpoint(state);
    return this.appendHere(state, op, blob, sync);
  }

  /** True when the journal is over its record or byte limit, holds mostly superseded data, or cannot be appended to. */
  private dueForCheckpoint(): boolean {
    const j = this.journal;
    if (this.mustCheckpoint || !j?.fh) return true;
    return journalFull(j.size, j.records, this.journalLimit, this.liveBytes);
  }

  /**
   * Appends to the current journal whatever its size, never checkpointing: a
   * rotation fills its new epoch this way, so nothing is collected while
   * vault.json still names the old epoch.
   */
  async appendHere(state: State, op: Op, blob?: SealedBlob, sync = true): Promise<Op> {
    if (this.readOnly) throw readOnlyError();
    const j = this.journal!;
    const fh = j.fh!;
    // A relocation changes where a blob lives, not what the vault holds: it takes no generation.
    const { bytes: record, blobAt } = this.codec.encode(j.id, j.size, { g: op.t === 'reloc' || op.t === 'blob' ? 0 : state.gen + 1, op }, blob?.bytes ?? new Uint8Array(0));
    try {
      await io('errors:io.action.saveChange', async () => {
        const bytesWritten = await fh.write(record, j.size);
        if (bytesWritten !== record.length) throw new Error('short write');
        // The journal is opened O_DSYNC: the write returns once the record is on disk, one system call instead of two.
        if (sync && !fh.dsync) await fh.datasync();
      });
    } catch (e) {
      // A failed write (a full disk) may have stored part of the record. Cut it off, or the
      // next, shorter record would end before its leftover bytes, which read back as damage.
      await fh.truncate(j.size).catch(() => {
        this.mustCheckpoint = true;
      });
      throw e;
    }
    const placed: Op = 'b' in op ? { ...op, b: { ...op.b, seg: j.id, off: blobAt } } : op;
    j.tail = record.slice(record.length - TAIL_BYTES);
    j.size += record.length;
    j.records += 1;
    return placed;
  }

  /**
   * Appends several writes as one change: each blob in a record of its own,
   * synced, then one `batch` record naming them all. Until that record is on
   * disk none of the writes exists, so a crash keeps all or none. Never
   * checkpoints between the blobs and the batch record.
   */
  async appendBatch(state: State, items: Array<{ op: Extract<Op, { t: 'write' }>; blob: SealedBlob }>): Promise<Op> {
    if (this.readOnly) throw readOnlyError();
    if (this.named && this.dueForCheckpoint()) await this.checkpoint(state);
    const ops: Op[] = [];
    for (const { op, blob } of items) {
      const placed = await this.appendHere(state, { t: 'blob', b: blob.ref }, blob, false);
      ops.push({ ...op, b: (placed as Extract<Op, { t: 'blob' }>).b });
    }
    await this.flush();
    return this.appendHere(state, { t: 'batch', ops });
  }

  /** The segment currently taking appends. */
  get journalId(): string | undefined {
    return this.journal?.id;
  }

  /** Changes recorded in the journal since the last checkpoint. */
  get pendingRecords(): number {
    return this.journal?.records ?? 0;
  }

  /** Makes appends made with `sync = false` durable. */
  async flush(): Promise<void> {
    await io('errors:io.action.saveChange', async () => this.journal?.fh?.datasync());
  }

  /**
   * Rewrites the manifest from `state`, starts a fresh journal segment and (with
   * `collect`, and only while vault.json names this epoch) compacts sparse
   * segments and removes segment files no live blob uses. Segments in `scrub`
   * are compacted whatever their share of live blobs (emptying the trash).
   */
  async checkpoint(state: State, collect = true, scrub?: ReadonlySet<string>): Promise<void> {
    if (this.readOnly) throw readOnlyError();
    const tidy = collect && this.named;
    await io('errors:io.action.saveIndex', async () => {
      const old = this.journal;
      try {
        await this.startJournal();
        if (tidy) await this.compact(state, scrub);
        const live = liveSegments(state);
        live.delete(this.journal!.id);
        await this.manifests.commit(state.toSnapshot(this.journal!.id, [...live].sort()));
      } catch (e) {
        // No manifest may name the fresh journal (a full disk cut the checkpoint off): a change appended there
        // would be acknowledged and then lost at the next load. Back to the old journal, and no append until a
        // checkpoint succeeds. The fresh segment stays (relocated blobs may live there) until one collects it.
        if (this.journal !== old) {
          // Blobs the compaction moved there are read from it until a checkpoint lists it: on disk where writes are not O_DSYNC too.
          await this.journal?.fh?.datasync().catch(() => undefined);
          await this.journal?.fh?.close().catch(() => undefined);
        }
        this.journal = old;
        this.mustCheckpoint = true;
        throw e;
      }
      const live = liveSegments(state);
      live.delete(this.journal!.id);
      this.manifestJournal = this.journal!.id;
      this.listed = new Set([...live, this.journal!.id]);
      this.mustCheckpoint = false;
      this.liveBytes = liveSize(state);
      await old?.fh?.close();
      if (tidy) await this.collect(old ? new Set([...live, old.id]) : live);
    });
  }

  /**
   * Moves the live blobs out of segments that are mostly garbage into the fresh
   * journal, so the collector can delete those segments. Blobs move as sealed
   * bytes (their associated data names the vault and blob, not the place), and
   * only the manifest written next makes the move count, so a crash here loses
   * nothing.
   */
  private async compact(state: State, scrub?: ReadonlySet<string>): Promise<void> {
    const sparse = await sparseSegments(this.fs, this.dir, state, this.journal!.id, scrub);
    if (!sparse.size) return;
    this.compacting = true;
    try {
      for (const b of [...state.liveBlobs()].filter((b) => sparse.has(b.seg))) {
        const bytes = await this.readRaw(b);
        // A damaged blob stays where it is (and keeps its segment) so verify can still name it.
        if (!bytes) continue;
        state.apply(await this.appendHere(state, { t: 'reloc', b: { ...b, seg: '', off: 0 } }, { bytes, ref: b }, false));
      }
      await this.journal!.fh!.datasync();
    } finally {
      this.compacting = false;
    }
  }

  /**
   * Removes segment files that are neither the journal nor in `live`, and
   * manifests of other key epochs. Does nothing while vault.json names another
   * epoch: those files are the ones the vault opens with.
   */
  async collect(live: Set<string>): Promise<void> {
    if (this.readOnly || !this.named) return;
    await io('errors:io.action.tidy', async () => {
      const mine = this.manifests.names();
      for (const name of await this.fs.readdir(this.dir)) {
        if (name.startsWith('manifest.') && !mine.has(name)) await this.fs.unlink(path.join(this.dir, name));
      }
      for (const name of await this.fs.readdir(path.join(this.dir, 'segments'))) {
        if (name === this.journal!.id || live.has(name) || name.startsWith('.')) continue;
        await this.dropReader(name);
        await this.fs.unlink(path.join(this.dir, 'segments', name));
      }
    });
  }

  private async startJournal(): Promise<void> {
    const id = toHex(randomBytes(ID_BYTES));
    const dir = path.join(this.dir, 'segments');
    const fh = await this.fs.open(path.join(dir, id), 'journal-new');
    const header = this.codec.header(id);
    await fh.write(header, 0);
    await fh.sync();
    await this.fs.syncDir(dir);
    this.journal = { id, fh, size: SEG_HEADER, records: 0, tail: header.slice(SEG_HEADER - TAIL_BYTES) };
  }

  /** Authenticates both manifests and every record of every segment the manifest lists; returns one line per problem. */
  async verifySegments(): Promise<string[]> {
    const problems = await this.manifests.verify();
    for (const id of [...this.listed].sort()) {
      const bytes = await io('errors:io.action.readVault', () => readIfExists(this.fs, path.join(this.dir, segmentFile(id))));
      // A torn tail of the journal was never acknowledged (a writer drops it; a read-only open leaves it): not damage.
      const readable = bytes && id === this.journal?.id ? bytes.subarray(0, this.journal.size) : bytes;
      problems.push(...(readable ? this.codec.verify(id, readable) : [`${segmentFile(id)}: missing`]));
    }
    return problems;
  }

  /** Closes every file handle. Keys belong to the caller. */
  async close(): Promise<void> {
    await this.journal?.fh?.close().catch(() => undefined);
    this.journal = undefined;
    await this.closeReaders();
  }
}

export { liveSegments, liveSize, segmentFile, type BlobKind, type SealedBlob, type StoreKeys } from './blobs';
