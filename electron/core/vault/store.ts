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
 * decided in checkpoint.ts; loading at open and catching up in store-load.ts.
 */
import path from 'node:path';
import { ID_BYTES, randomBytes, toHex } from './crypto';
import { liveSegments, liveSize, segmentFile, type SealedBlob, type StoreKeys } from './blobs';
import { CHECKPOINT_RECORDS, journalFull, sparseSegments } from './checkpoint';
import { io, readIfExists } from './files';
import { SEG_HEADER } from './records';
import type { State, Op } from './state';
import { StoreLoad, TAIL_BYTES, type StoreOptions } from './store-load';
import { readOnlyError } from './types';

export class Store extends StoreLoad {
  /** True while checkpoint() moves live blobs out of sparse segments. */
  private compacting = false;
  /**
   * False while vault.json names another key epoch (a rotation in progress):
   * nothing may then be collected, since the files it would remove are the
   * ones the vault still opens with.
   */
  named = true;

  constructor(
    dir: string,
    vaultId: Uint8Array,
    keys: StoreKeys,
    manifestId: string,
    private readonly journalLimit = CHECKPOINT_RECORDS,
    opts: StoreOptions = {},
  ) {
    super(dir, vaultId, keys, manifestId, opts);
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
