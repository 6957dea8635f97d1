/**
 * A v1 vault (or the v1 part of an upgraded one) read as the frozen
 * pseudo-device L (docs/sync-design.md §8): a pure function of the v1
 * Snapshot, so every device that reads the same v1 files gets the same state.
 *
 * - each path → file id `L:<path>`, its path register one value keyed by it
 *   (at = the file's creation time, so modified/created read as in v1);
 * - each version, kept or current → vid `L:<blobId>`, parents linear in v1
 *   version order, content id unknown (''), the v1 number kept as `v1` so
 *   ordinals stay what v1 showed; the stamp `[max m so far, v]`, so a clock
 *   that went back between two v1 writes cannot reorder them;
 * - each trash record → a delete of the file's last version;
 * - each directory → one tag `L:<path>` carrying v1's created and modified;
 * - internal keys → single-head values `L:<blobId>`; the history depth → the
 *   `depth` register; `frontier[L]` = the v1 generation.
 * Blob refs keep only what locates nothing (id, length, hash): `blobs`
 * returns v1's full refs by blob id for the reader of L's segments.
 */
import type { BlobRef, FileRec, HistRec, Snapshot } from '../state';
import { emptyState, ROOT, type FileState, type SyncState, type VersionRec } from './crdt';
import { compareHlc, type Hlc } from './hlc';
import { formatLVid, L_DEVICE } from './ids';
import type { BlobRef2 } from './op';

const ref2 = (b: BlobRef): BlobRef2 => ({ id: b.id, len: b.len, h: b.h });

/** The SyncState of a v1 snapshot, and v1's blob refs by blob id (where L's bytes lie). */
export function fromV1(snap: Snapshot): { state: SyncState; blobs: Map<string, BlobRef> } {
  const s = emptyState();
  const blobs = new Map<string, BlobRef>();
  let first: Hlc | undefined;
  let last: Hlc = [0, 0];
  let lastAt = 0;
  const seen = (h: Hlc, at: number) => {
    if (!first || compareHlc(h, first) < 0) first = h;
    if (compareHlc(h, last) > 0) last = h;
    lastAt = Math.max(lastAt, at);
  };

  const paths = new Set([...Object.keys(snap.files), ...Object.keys(snap.hist)]);
  for (const p of paths) {
    const current: FileRec | undefined = snap.files[p];
    const hist: HistRec[] = snap.hist[p] ?? [];
    const chain: Array<{ v: number; b: BlobRef; s: number; m: number; w?: FileRec['w'] }> = [...hist];
    if (current) chain.push(current);
    chain.sort((a, b) => a.v - b.v);
    if (!chain.length) continue;
    const fid = formatLVid(p);
    const f: FileState = { versions: new Map(), path: new Map(), rms: new Map() };
    let prev: string | undefined;
    let ms = 0;
    for (const [i, e] of chain.entries()) {
      ms = Math.max(ms, e.m);
      const h: Hlc = [ms, e.v];
      const vid = formatLVid(e.b.id);
      const rec: VersionRec = { par: prev ? [prev] : [], b: ref2(e.b), s: e.s, k: '', h, at: e.m, v1: e.v, ...(e.w ? { w: e.w } : {}), ...(i === 0 && current ? { c: current.c } : {}) };
      f.versions.set(vid, rec);
      blobs.set(e.b.id, e.b);
      seen(h, e.m);
      prev = vid;
    }
    const created = current?.c ?? chain[0]!.m;
    f.path.set(fid, { p, par: [], h: [created, 0], at: created });
    if (!current) {
      const t = snap.trash?.[p];
      const h: Hlc = [t?.at ?? 0, 0];
      f.rms.set(formatLVid(`rm:${p}`), { heads: [prev!], h, ...(t ? { at: t.at } : {}), ...(t?.w ? { w: t.w } : {}) });
    }
    s.files.set(fid, f);
  }

  for (const [p, d] of Object.entries(snap.dirs)) {
    s.dirs.set(p, { adds: new Map([[formatLVid(p), { c: d.c, m: d.m }]]), removed: new Set() });
    if (p !== ROOT) seen([d.m, 0], d.m);
  }
  for (const [k, b] of Object.entries(snap.internal)) {
    s.kv.set(k, { vals: new Map([[formatLVid(b.id), { par: [], b: ref2(b), h: [0, 0] }]]), dels: new Map() });
    blobs.set(b.id, b);
  }
  s.regs.set('depth', new Map([[formatLVid('depth'), { par: [], v: snap.depth, h: [0, 0] }]]));
  s.frontier.set(L_DEVICE, snap.gen);
  s.devices.set(L_DEVICE, { firstH: first ?? [0, 0], lastH: last, lastAt });
  return { state: s, blobs };
}
