/**
 * An unlocked vault of format v2 (docs/sync-design.md §10 stage 3): its keys,
 * its Store2 and the view of the joined state, rebuilt after every change and
 * every ingest. The view reads texts synchronously, so the texts a merge of
 * concurrent heads needs are decrypted first (SyncView.textsNeeded) and kept
 * until the session ends. The first change this device makes mints its
 * device id (in the state folder, durably, before its first file in the
 * vault) and, on a v1 vault, upgrades it (§8): its own folder first, with an
 * `hdr {kind: 'upgrade'}` op, then vault.json at version 2.
 */
import { fromUtf8, wipe } from '../crypto';
import type { StoreKeys } from '../blobs';
import { ensureDevice } from './device';
import { succeed2 } from '../devices';
import { readOnlyError, type VaultChange } from '../types';
import { forgetOp } from './build';
import { checkpoint2 } from './compact2';
import { parseVid, type Vid } from './ids';
import { seqsOf, type Op2 } from './op';
import type { Fid } from './crdt';
import { newerBuild, type Store2 } from './store2';
import { SyncView } from './view';
import { TextNotHere } from './resolve';
import { CHECKPOINT_RECORDS } from '../checkpoint';
import { wipeOld } from './epochs';

/** What the session needs from the vault around it. */
export interface SyncHost {
  stateDir: string;
  vaultId: string;
  readOnly: boolean;
  /** The header counter now. */
  counter(): number;
  /** vault.json still says version 1: the first write upgrades it. */
  needsUpgrade(): boolean;
  /** Writes vault.json at version 2, durably, on the newest vault.json; `first` runs just before, if it is still version 1. */
  upgradeHeader(first: () => Promise<void>): Promise<void>;
  emit(change: VaultChange): void;
  /** After each own change: its confirmation, now or soon (§2.5). */
  afterWrite(): Promise<void>;
  /** Own records between checkpoints. */
  journalLimit: number;
}

export class SyncSession {
  readonly kind = 'v2' as const;
  /** True once this process appended in this session (a per-call vault checkpoints at close only then). */
  appended = false;
  /** Rises each time an ingest makes something new visible (the window's follower tells it then). */
  arrivals = 0;
  private current: SyncView;
  /** Decrypted texts a merge needs, by blob id: dropped with the session. */
  private readonly texts = new Map<string, string>();
  /** Some text a merge needs had not arrived at the last refresh: the next ingest refreshes even if nothing new is applied. */
  private missing = false;

  constructor(
    readonly vmk: Uint8Array,
    readonly keys: StoreKeys,
    /** The content-id subkey (SUBKEY.contentId). */
    readonly contentKey: Uint8Array,
    readonly store: Store2,
    readonly host: SyncHost,
  ) {
    this.current = new SyncView(store.state, this.reader);
  }

  get view(): SyncView {
    return this.current;
  }

  private readonly reader = (b: { id: string }): string => {
    const t = this.texts.get(b.id);
    if (t === undefined) throw new TextNotHere();
    return t;
  };

  /**
   * Rebuilds the view of the store's state, loading the texts its merges need first (the view reads them only when
   * asked, so it is built once, before they are loaded). `filesSame`: the change since the current view touched no
   * memory file, so its graph and tree are kept (SyncView `same`); `fid`: it was a new version of that file alone.
   */
  async refresh(filesSame = false, fid?: Fid): Promise<void> {
    const gen = ++this.started;
    const at = new Map(this.store.state.frontier);
    const view = new SyncView(this.store.state, this.reader, filesSame ? this.current : undefined, fid);
    // Patched: one file's new version, which replaced every head it had (parFor), so it needs no text; the others'
    // were loaded by the build before (`missing` false).
    if (view.patched) {
      this.current = view;
      this.viewAt = at;
      this.shown = gen;
      return;
    }
    // (Said with the view it is about: while its texts are read, the view shown is the one before, and a write then
    // must not take that one's texts for loaded.)
    let missing = false;
    for (const v of view.textsNeeded()) {
      if (this.texts.has(v.rec.b.id)) continue;
      // Not here yet (still arriving from the computer that wrote it): that file shows as a conflict until it is.
      const bytes = await this.store.blobs.read('blobs', v.rec.b, `a version of a memory (${v.vid})`, () => this.store.learnIndexes()).catch(() => undefined);
      if (!bytes) {
        missing = true;
        continue;
      }
      this.texts.set(v.rec.b.id, fromUtf8(bytes));
      wipe(bytes);
    }
    // A refresh that started later (a write's, while this one read texts: a read's catch-up is not queued) already
    // shows a newer state: this view, built before it, would hide what that one shows (an own write just made).
    if (gen < this.shown) return;
    this.current = view;
    this.viewAt = at;
    this.shown = gen;
    this.missing = missing;
  }

  /** Refreshes started, and the one whose view is shown (views are built in that order, their texts read after). */
  private started = 0;
  private shown = 0;

  /** The state's frontier when the current view was built. */
  private viewAt = new Map<string, number>();

  /** True when nothing was applied to the state since the current view was built (an ingest by a read applies ops). */
  private viewCurrent(): boolean {
    const f = this.store.state.frontier;
    if (f.size !== this.viewAt.size) return false;
    for (const [dev, seq] of f) if (this.viewAt.get(dev) !== seq) return false;
    return true;
  }

  /** True when the state's frontier is the view's but for this device's op `vid` (`count` seqs), just appended. */
  private onlyOwnSinceView(vid: Vid, count: number): boolean {
    const at = parseVid(vid);
    if (!at || at.seq === undefined) return false;
    const f = this.store.state.frontier;
    for (const [dev, seq] of f) if (dev === at.dev ? seq !== at.seq + count - 1 || (this.viewAt.get(dev) ?? 0) >= at.seq : this.viewAt.get(dev) !== seq) return false;
    for (const dev of this.viewAt.keys()) if (!f.has(dev)) return false;
    return true;
  }

  /** Reads the other devices' files again; true if anything new became visible. */
  async ingest(): Promise<boolean> {
    const n = await this.store.ingest();
    // What a read applied since the view was built (one that looked for bytes in every folder: ckpt-read.ts
    // `learnIndexes` ingests) is new to the view too, though this ingest found nothing more.
    const behind = !this.viewCurrent();
    if (n || this.missing || behind) await this.refresh();
    return n > 0 || behind;
  }

  /**
   * Before a change: refused when read-only or written by a newer build;
   * mints the device and upgrades a v1 vault on the first one; writes a
   * checkpoint when one is due (`mid`: not inside a change that is already
   * half written, an import's blobs before its batch).
   */
  private async writable(mid = false): Promise<void> {
    if (this.host.readOnly) throw readOnlyError();
    if (this.store.report.newer) throw newerBuild();
    if (!this.store.device) {
      const left = this.store.left;
      const { device } = await ensureDevice(this.host.stateDir, this.host.vaultId, undefined, undefined, left);
      await this.store.becomeDevice(device.id);
      await this.refresh();
      if (left) await succeed2(this, left);
    }
    if (this.host.needsUpgrade()) {
      // Own folder first: a crash before vault.json is rewritten leaves a folder a v1 reader ignores, finished at the next write.
      // (After vault.json is followed: keys an old build rotated elsewhere end the session before a record under the old ones.)
      await this.host.upgradeHeader(async () => void (await this.store.append({ t: 'hdr', counter: this.host.counter() + 1, kind: 'upgrade', epoch: this.store.o.epoch })));
    }
    if (!mid && (this.store.sinceCheckpoint >= this.host.journalLimit || journalFull(this.store))) await this.checkpoint();
  }

  /** The vid the next own op takes (a put that creates a file names itself with it). */
  async nextVid(): Promise<Vid> {
    await this.writable();
    return this.store.nextVid();
  }

  /** Records `op` durably (with its sealed blob), applies it and rebuilds the view. Returns its vid. `mid`: see `writable`. */
  async commit(op: Op2, blob?: Uint8Array, mid = false): Promise<Vid> {
    await this.writable(mid);
    // An internal value's put or delete leaves every memory file as it was: the view's graph and tree are kept, if
    // nothing else was applied since they were built (else a write's cost grew with every memory: scale2 tests).
    // So is an own change of one memory (its entry alone is brought up to date), when no text was missing.
    // Not while a text the view needs is missing: its total counted a merge as its newer side, and the text may be
    // here now (the refresh reads it): the view and its total are built again.
    const one = this.missing ? undefined : oneFile(op);
    const filesSame = !this.missing && (op.t === 'kput' || op.t === 'kdel' || one !== undefined) && this.viewCurrent();
    const { vid } = await this.store.append(op, blob);
    this.appended = true;
    // A blob written ahead of its batch changes nothing shown, and its batch confirms it.
    if (seqsOf(op)) {
      // Reads are not queued: one that ingested while this op was being written (ckpt-read.ts `learnIndexes`) applied
      // other records too, which the view kept or patched would not show. Only this op since the view: else built again.
      const kept = filesSame && this.onlyOwnSinceView(vid, seqsOf(op));
      await this.refresh(kept, kept ? one : undefined);
      // The change is durable and applied here: a confirmation that fails (a full disk) is not its failure. The next
      // write, ingest or close confirms it; till then only the other computers wait for it.
      await this.host.afterWrite().catch(() => undefined);
    }
    return vid;
  }

  /**
   * Writes a checkpoint of this device (and compacts its own files): first the
   * `forget` of versions no file shows any more, so their bytes may go.
   */
  async checkpoint(scrub?: ReadonlySet<string>): Promise<void> {
    if (this.host.readOnly || !this.store.device || !this.store.journal) return;
    const forget = forgetOp(this.current, this.store.device);
    if (forget) {
      await this.store.append(forget);
      await this.refresh();
    }
    await checkpoint2(this.store, this.host.counter(), scrub);
  }

  /** Due at close: own records not yet in a checkpoint. */
  get pending(): number {
    return this.store.sinceCheckpoint;
  }

  /** Wipes the keys and drops the texts; the caller closes the store. */
  wipe(): void {
    this.store.blobs.ended = true;
    wipe(this.vmk, this.contentKey, this.keys.manifest, this.keys.journal, this.keys.blobs, this.keys.internal);
    wipeOld(this.store.older);
    this.texts.clear();
  }
}

export const DEFAULT_JOURNAL_LIMIT = CHECKPOINT_RECORDS;

const FULL_BYTES = 16 * 1024 * 1024;
const FULL_MIN_BYTES = 1024 * 1024;

/**
 * The own journal holds more blob bytes since the last checkpoint than min(16 MiB, max(1 MiB, twice the live bytes
 * that checkpoint indexed)): mostly superseded texts, as format 1's `journalFull` (checkpoint.ts) says by its bytes.
 * Without it a big memory edited again and again grew the folder by its size per edit until the record limit (4,096).
 */
function journalFull(st: Store2): boolean {
  return st.bytesSinceCheckpoint > Math.min(FULL_BYTES, Math.max(FULL_MIN_BYTES, 2 * st.liveAtCheckpoint));
}

/**
 * The one memory file `op` changes when SyncView may patch its entry alone: a write of its text that settles nothing
 * (no losers named, no merge written), or a delete or a move of that file alone. Else undefined.
 */
function oneFile(op: Op2): Fid | undefined {
  if (op.t === 'put') return op.lose === undefined && op.m === undefined ? op.f : undefined;
  if ((op.t === 'rm' || op.t === 'mv') && op.files.length === 1 && !op.dirs.length) return op.files[0]!.f;
  return undefined;
}
