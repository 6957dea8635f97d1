/**
 * How the store of format v2 (store2.ts) reads checkpoints: one checkpoint
 * read and authenticated, its state joined, and where each device's blobs lie
 * learnt from its newest one. Writing them is compact2.ts.
 */
import path from 'node:path';
import type { StoreKeys } from '../blobs';
import { io, readIfExists } from '../files';
import type { VaultFs } from '../fsio';
import type { BlobIndex } from './blobs2';
import { openCheckpoint, type Checkpoint } from './ckpt2';
import { joinInto, noteSeen, type SyncState } from './crdt';
import { deviceDir } from './layout';
import type { SegmentCodec2 } from './records2';
import type { DeviceFolder } from './scan';
import { withoutStaleL } from './stale-l';
import type { Store2Options } from './store2';
import type { IngestReport } from './visible';

export abstract class CheckpointReader {
  abstract state: SyncState;
  abstract readonly codec: SegmentCodec2;
  abstract readonly blobs: BlobIndex;
  abstract folders: Map<string, DeviceFolder>;
  abstract report: IngestReport;
  abstract readonly o: Store2Options;
  abstract get fs(): VaultFs;
  /** The v1 part as the v1 files hold it now (a vault made by a format-1 build), when there is one. */
  protected abstract v1State: SyncState | undefined;
  abstract keysOf(ep: string | undefined): StoreKeys;
  abstract ingest(): Promise<number>;

  /** Reads device `dev`'s checkpoint `name`: undefined when missing, not whole or not authentic. */
  async readCheckpoint(dev: string, name: string): Promise<Checkpoint | undefined> {
    const ep = this.folders.get(dev)?.old?.get(name);
    // (Not a regular file, a FIFO or a folder anyone may leave under such a name: no checkpoint, and no reason to stop.)
    const read = () => readIfExists(this.fs, path.join(this.o.dir, deviceDir(dev, ep ?? this.o.epoch), name)).catch((e: NodeJS.ErrnoException) => (e.code === 'EINVAL' || e.code === 'EISDIR' ? undefined : Promise.reject(e)));
    const bytes = await io('errors:io.action.readVault', read);
    if (!bytes) return undefined;
    try {
      const c = openCheckpoint(this.codec, this.o.vaultId, this.keysOf(ep).manifest, { device: dev, epoch: ep ?? this.o.epoch, name }, bytes);
      if (c && ep) c.ep = ep;
      return c;
    } catch {
      this.report.newer = true;
      return undefined;
    }
  }

  /** Joins a checkpoint's state and learns where its device's blobs lie. */
  protected adopt(dev: string, c: Checkpoint): void {
    // Its copy of the v1 part as the v1 files hold it now (a format-1 build may have written on: stale-l.ts).
    joinInto(this.state, this.v1State ? withoutStaleL(c.state, this.v1State) : c.state);
    // A checkpoint holds all its device had applied.
    noteSeen(this.state, dev, c.state.frontier);
    for (const [id, l] of c.index) this.blobs.add(id, { dev, ...l, ...(c.ep ? { ep: c.ep } : {}) });
  }

  /** Checkpoints whose blob index is known here, by device and name. */
  protected readonly learnt = new Set<string>();

  /**
   * Learns where every device's blobs lie now from its newest readable
   * checkpoint (a device moves its blobs into packs when it compacts, and
   * removes the segments they were in): what a read that found nothing does
   * before it gives up.
   */
  async learnIndexes(): Promise<void> {
    await this.ingest();
    for (const [dev, f] of this.folders) {
      for (const name of f.checkpoints.slice(0, 2)) {
        if (this.learnt.has(`${dev}/${name}`)) break;
        const c = await this.readCheckpoint(dev, name);
        if (!c) continue;
        this.learnt.add(`${dev}/${name}`);
        for (const [id, l] of c.index) this.blobs.add(id, { dev, ...l, ...(c.ep ? { ep: c.ep } : {}) });
        break;
      }
    }
  }

  /** Joins `dev`'s newest checkpoint that reads and covers seq `need` (the newest two are tried). */
  protected async joinCheckpoint(dev: string, need: number): Promise<boolean> {
    for (const name of (this.folders.get(dev)?.checkpoints ?? []).slice(0, 2)) {
      if (parseInt(name.slice(2, 14), 16) < need) break;
      const c = await this.readCheckpoint(dev, name);
      if (c) {
        this.adopt(dev, c);
        this.learnt.add(`${dev}/${name}`);
        return true;
      }
    }
    return false;
  }
}
