/**
 * Reading a device's folders of every key epoch whose key is known as one folder (docs/sync-design.md §12.10): its
 * seqs go on across epochs, so the files of an older epoch (read with that epoch's keys) and of the current one
 * make one sequence. Keys files not read yet (another computer rotated, or learnt a rival's key) add their epochs.
 */
import type { StoreKeys } from '../blobs';
import { io } from '../files';
import type { VaultFs } from '../fsio';
import { readOldEpochs, wipeOld, type OldEpoch } from './epochs';
import { SegmentCodec2 } from './records2';
import { FolderScanner, type DeviceFolder } from './scan';

export class EpochFolders {
  private readonly scanners: Array<{ e: OldEpoch; scanner: FolderScanner }> = [];
  /** Keys files already read, by device and name. */
  private readonly keysRead = new Set<string>();

  constructor(
    private readonly fsx: VaultFs,
    private readonly root: string,
    private readonly vaultId: Uint8Array,
    private readonly epoch: string,
    private readonly keys: StoreKeys,
    /** The older epochs read (the store's blob index reads with the same list). */
    readonly older: OldEpoch[],
  ) {
    for (const e of older) this.scanners.push(this.scannerOf(e));
  }

  private scannerOf(e: OldEpoch): { e: OldEpoch; scanner: FolderScanner } {
    return { e, scanner: new FolderScanner(this.fsx, this.root, new SegmentCodec2(this.vaultId, e.keys.journal), e.epoch) };
  }

  /**
   * Device `dev`'s folder of this epoch (`current`'s scan) with its folders of every older epoch: the files of an
   * older epoch carry it (`FileScan.ep`, `DeviceFolder.old`).
   */
  async scanAll(current: FolderScanner, dev: string): Promise<DeviceFolder> {
    const f = await current.scan(dev);
    for (const { e, scanner } of this.scanners) {
      const g = await scanner.scan(dev);
      if (!g.segments.length && !g.checkpoints.length && !g.packs.length && !g.unreadable.length) continue;
      f.old ??= new Map();
      for (const x of g.segments) {
        x.ep = e.epoch;
        f.segments.push(x);
      }
      for (const n of [...g.checkpoints, ...g.packs]) f.old.set(n, e.epoch);
      f.checkpoints.push(...g.checkpoints);
      f.packs.push(...g.packs);
      f.unreadable.push(...g.unreadable);
    }
    if (f.old) {
      f.checkpoints.sort().reverse();
      f.segments.sort((a, b) => (a.name < b.name ? -1 : 1));
    }
    return f;
  }

  /** Reads the keys files in `folders` not read yet; true when one held an epoch not known here (then read too). */
  async learn(folders: ReadonlyMap<string, DeviceFolder>): Promise<boolean> {
    const fresh = [...folders].flatMap(([dev, f]) => (f.keys ?? []).map((n) => `${dev}/${n}`)).filter((k) => !this.keysRead.has(k));
    if (!fresh.length) return false;
    for (const k of fresh) this.keysRead.add(k);
    let learnt = false;
    for (const e of await io('errors:io.action.readVault', () => readOldEpochs(this.fsx, this.root, this.vaultId, this.epoch, this.keys.manifest))) {
      if (this.older.some((x) => x.epoch === e.epoch)) {
        wipeOld([e]);
        continue;
      }
      this.older.push(e);
      this.scanners.push(this.scannerOf(e));
      learnt = true;
    }
    return learnt;
  }

  /** The keys of epoch `ep` (undefined: this one). */
  keysOf(ep: string | undefined): StoreKeys {
    return ep === undefined ? this.keys : this.older.find((e) => e.epoch === ep)!.keys;
  }
}
