/**
 * A checkpoint's copy of the v1 part (pseudo-device L), made when its device
 * last read the v1 files, trimmed to what those files hold now. L is frozen
 * for format-2 writers, not for a format-1 build still writing on a computer
 * the upgrade has not reached yet (docs/sync-design.md §8): it replaces an
 * internal value (settings, a conversation's head), deletes one, empties the
 * trash, removes a folder, and its collector removes the blobs it no longer
 * holds. Joined as they were, the checkpoint's old L values came back beside
 * the new ones, unreadable (their blobs gone): the key read as damaged.
 *
 * Trimmed: an internal value, a folder tag, a register value or a trash
 * entry of L that the v1 files no longer hold; a file of L that no format-2
 * op touched and the v1 files no longer hold (emptied from the trash,
 * renamed). A file a format-2 computer changed keeps its L entries (its
 * versions build on them; an L rename then shows a duplicate, never a loss).
 */
import type { SyncState } from './crdt';
import { L_DEVICE } from './ids';

const isL = (vid: string) => vid.startsWith(`${L_DEVICE}:`);

function trim<V>(from: Map<string, V>, keep: ReadonlyMap<string, unknown> | undefined): Map<string, V> {
  const out = new Map<string, V>();
  for (const [vid, v] of from) if (!isL(vid) || keep?.has(vid)) out.set(vid, v);
  return out;
}

/** `c` (a checkpoint's state) without the L entries the current v1 state `v1` no longer holds. */
export function withoutStaleL(c: SyncState, v1: SyncState): SyncState {
  // Only against v1 files at least as new as the checkpoint's copy: older ones (still arriving, or restored from a
  // copy) lack what they have not got yet, which is not stale.
  if ((v1.frontier.get(L_DEVICE) ?? 0) < (c.frontier.get(L_DEVICE) ?? 0)) return c;
  const kv: SyncState['kv'] = new Map();
  for (const [k, e] of c.kv) {
    const vals = trim(e.vals, v1.kv.get(k)?.vals);
    if (vals.size || e.dels.size) kv.set(k, { vals, dels: e.dels });
  }
  const files: SyncState['files'] = new Map();
  for (const [fid, f] of c.files) {
    const now = v1.files.get(fid);
    const touched = [...f.versions.keys(), ...f.path.keys(), ...f.rms.keys()].some((vid) => !isL(vid));
    if (!touched && !now) continue;
    files.set(fid, touched ? { ...f, rms: trim(f.rms, now?.rms ?? new Map()) } : { versions: f.versions, path: f.path, rms: trim(f.rms, now!.rms) });
  }
  const dirs: SyncState['dirs'] = new Map();
  for (const [p, d] of c.dirs) {
    const adds = trim(d.adds, v1.dirs.get(p)?.adds);
    if (adds.size || d.removed.size) dirs.set(p, { adds, removed: d.removed });
  }
  const regs: SyncState['regs'] = new Map();
  for (const [r, vals] of c.regs) {
    // v1's value (joined already) is L's current one: the checkpoint's L value may be an older one under the same vid.
    const kept = v1.regs.has(r) ? trim(vals, undefined) : vals;
    if (kept.size) regs.set(r, kept);
  }
  return { ...c, kv, files, dirs, regs };
}
