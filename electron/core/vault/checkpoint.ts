/**
 * When the journal is due for a checkpoint, and which older segments a
 * checkpoint compacts (the steps themselves are Store.checkpoint and
 * Store.compact in store.ts).
 */
import path from 'node:path';
import { segmentFile } from './blobs';
import type { VaultFs } from './fsio';
import type { State } from './state';

const CHECKPOINT_BYTES = 16 * 1024 * 1024;
/** The default cap on journal records between checkpoints. */
export const CHECKPOINT_RECORDS = 4096;
/**
 * A journal that has grown past max(this, twice the live bytes at the last
 * checkpoint) holds mostly superseded data: checkpoint and compact it. Tied to
 * the live size, the checkpoint's cost (proportional to the vault) is spread
 * over at least as many written bytes, so a write's amortised cost does not
 * grow with the vault.
 */
const SPACE_MIN_BYTES = 128 * 1024;
/** A segment at least this big whose live blobs fill less than this share of it is compacted at the next checkpoint. */
const COMPACT_MIN_BYTES = 64 * 1024;
const COMPACT_LIVE_RATIO = 0.25;

/** True when a journal of `size` bytes and `records` records is over its record or byte limit, or holds mostly superseded data. */
export function journalFull(size: number, records: number, recordLimit: number, liveBytes: number): boolean {
  return size > CHECKPOINT_BYTES || records >= recordLimit || size > Math.max(SPACE_MIN_BYTES, 2 * liveBytes);
}

/**
 * The segments (other than the journal `journalId`) whose live blobs a
 * checkpoint moves out: those mostly garbage, and every one in `scrub`
 * whatever its share of live blobs (emptying the trash).
 */
export async function sparseSegments(fsx: VaultFs, dir: string, state: State, journalId: string, scrub?: ReadonlySet<string>): Promise<Set<string>> {
  const liveBytes = new Map<string, number>();
  for (const b of state.liveBlobs()) liveBytes.set(b.seg, (liveBytes.get(b.seg) ?? 0) + b.len);
  const sparse = new Set<string>();
  for (const [seg, bytes] of liveBytes) {
    if (seg === journalId) continue;
    const size = await fsx.stat(path.join(dir, segmentFile(seg))).then((st) => st.size, () => 0);
    if (scrub?.has(seg) || (size >= COMPACT_MIN_BYTES && bytes < size * COMPACT_LIVE_RATIO)) sparse.add(seg);
  }
  return sparse;
}
