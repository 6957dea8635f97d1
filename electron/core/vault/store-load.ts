/**
 * How a format-1 (single-writer) Store reads its vault: loading at open (the
 * manifest, its `.next` or previous copy, and the journal replayed, a torn
 * last record cut off) and catching up with appends other processes made to
 * the journal. Holds the state a Store keeps of its files; Store (store.ts)
 * adds appends, checkpoints and collection.
 */
import path from 'node:path';
import { sameBytes } from './crypto';
import { BlobStore, liveSegments, liveSize, segmentFile, type StoreKeys } from './blobs';
import { io, readIfExists, removeTemps } from './files';
import { nodeFs, type VaultFile, type VaultFs } from './fsio';
import { Manifests } from './manifest';
import { SegmentCodec } from './records';
import { replayFrom, replaySegment } from './replay';
import { State, type Snapshot } from './state';
import { VaultError } from './types';
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
export const TAIL_BYTES = 32;

export abstract class StoreLoad extends BlobStore {
  /** `tail`: the journal's last TAIL_BYTES bytes before `size` as this store wrote or read them (see catchUp). */
  protected journal: { id: string; fh: VaultFile | undefined; size: number; records: number; tail: Uint8Array } | undefined;
  /** Problems found while loading: shown at unlock, listed by verify. */
  readonly problems: string[] = [];
  /** Segments the manifest lists (plus the journal); any other segment file is left over from an interrupted checkpoint or rotation. */
  protected listed = new Set<string>();
  /** This key epoch's manifest, its fallback and a checkpoint's next one. */
  protected readonly manifests: Manifests;
  /** Set when the journal's tail is unreadable: the next write starts a fresh segment instead of appending after it. */
  protected mustCheckpoint = false;
  /** Live blob bytes at the last checkpoint or load: the journal may grow to twice this before it is compacted. */
  protected liveBytes = 0;
  /** The journal the manifest this store last read or wrote names; the journal taking appends is another only after a failed checkpoint. */
  protected manifestJournal: string | undefined;

  protected readonly codec: SegmentCodec;
  readonly readOnly: boolean;

  constructor(dir: string, vaultId: Uint8Array, keys: StoreKeys, manifestId: string, opts: StoreOptions) {
    super(dir, vaultId, keys, opts.fs ?? nodeFs);
    this.codec = new SegmentCodec(vaultId, keys.journal);
    this.readOnly = opts.readOnly ?? false;
    this.manifests = new Manifests(this.fs, dir, vaultId, keys, manifestId);
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
}
