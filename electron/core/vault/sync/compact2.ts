/**
 * Own checkpoints and own-only compaction (docs/sync-design.md §4). A
 * checkpoint is a new immutable file `c-<seq>-<rand>` holding the joined
 * state, this device's own files and the places of its live blobs; the live
 * blobs still lying in closed journal segments (or in packs now mostly dead,
 * or holding bytes a purge must scrub) are first copied into a new pack, so
 * the checkpoint's index points only into packs.
 *
 * What is removed, only ever in this device's own folder:
 * - checkpoints older than the newest two;
 * - a closed segment once both kept checkpoints cover every seq in it (the
 *   fallback checkpoint must still find its ops) and neither indexes it;
 * - a pack neither kept checkpoint indexes.
 * A file whose name this format does not write is never touched.
 */
import path from 'node:path';
import { concat, fromHex, wipe } from '../crypto';
import { io } from '../files';
import { liveBlobs, purgedBlobs, sealBlob2 } from './blobs2';
import { PACK_MAGIC, sealCheckpoint, type BlobLoc } from './ckpt2';
import { newName, newPackName, parseFileName, writeImmutable } from './layout';
import type { Store2 } from './store2';
import type { SyncState } from './crdt';
import { deviceOf } from './ids';

const COMPACT_MIN_BYTES = 64 * 1024;
const COMPACT_LIVE_RATIO = 0.25;
/**
 * Packs under COMPACT_MIN_BYTES are never "mostly dead" enough to redo, and each checkpoint that moves a blob makes one:
 * once there are more than this many, they are merged into the new pack, so their number stays bounded (scale2 tests).
 */
const SMALL_PACKS = 4;
const seqOfName = (name: string) => parseInt(name.slice(2, 14), 16);

/** The blob ids of the versions and internal values device `me` wrote. */
function ownBlobs(s: SyncState, me: string): Set<string> {
  const out = new Set<string>();
  for (const f of s.files.values()) for (const [vid, v] of f.versions) if (deviceOf(vid) === me) out.add(v.b.id);
  for (const k of s.kv.values()) for (const [vid, v] of k.vals) if (deviceOf(vid) === me) out.add(v.b.id);
  return out;
}

/**
 * Writes a checkpoint of `st` and compacts this device's own files. The open
 * segment is closed first (ended by an ack), so the next own op starts a new
 * one. `scrub`: blob ids whose sealed bytes must leave every pack (a purge).
 */
export async function checkpoint2(st: Store2, counter: number, scrub: ReadonlySet<string> = new Set()): Promise<void> {
  const me = st.device;
  if (!me || st.o.readOnly || !st.journal) return;
  const dir = st.folderOf(me);
  const fsx = st.fs;
  // Another process of this computer may have compacted meanwhile: where its packs put this device's blobs is in its checkpoint.
  await st.learnIndexes();
  // That read may have found this computer's own files gone back or replaced (store2.ts `rehome`): nothing is its to write.
  if (st.device !== me || !st.journal) return;
  await io('errors:io.action.saveIndex', async () => {
    await st.journal!.seal(st.clock.current(), Math.floor(Date.now()), st.state.frontier, st.nextSeq);
    const own = await st.scanner.scan(me);
    const live = liveBlobs(st.state);
    const present = new Set([...own.segments.map((s) => s.name), ...own.packs]);
    // Live bytes per pack: a pack mostly dead, or holding scrubbed bytes, is copied out.
    const packSize = new Map<string, number>();
    for (const p of own.packs) packSize.set(p, (await fsx.stat(path.join(dir, p))).size);
    const packLive = new Map<string, number>();
    for (const [id] of live) for (const pl of st.blobs.placesOf(id, me)) if (packSize.has(pl.file)) packLive.set(pl.file, (packLive.get(pl.file) ?? 0) + pl.len);
    const redo = new Set<string>();
    for (const [p, size] of packSize) if (size >= COMPACT_MIN_BYTES && (packLive.get(p) ?? 0) < size * COMPACT_LIVE_RATIO) redo.add(p);
    const small = [...packSize.keys()].filter((p) => packSize.get(p)! < COMPACT_MIN_BYTES);
    if (small.length > SMALL_PACKS) for (const p of small) redo.add(p);
    // Scrubbed here, or purged on any computer (not live again: a blob may be shared by another version).
    for (const id of [...scrub, ...purgedBlobs(st.state)]) if (!live.has(id)) for (const pl of st.blobs.placesOf(id, me)) if (packSize.has(pl.file)) redo.add(pl.file);

    const index = new Map<string, BlobLoc>();
    const copy: Array<{ id: string; bytes: Uint8Array }> = [];
    const mine = ownBlobs(st.state, me);
    for (const [id, ref] of live) {
      const places = st.blobs.placesOf(id, me).filter((p) => p.ep === undefined && present.has(p.file));
      const inPack = places.find((p) => packSize.has(p.file) && !redo.has(p.file));
      if (inPack) {
        index.set(id, { file: inPack.file, off: inPack.off, len: inPack.len });
        continue;
      }
      if (places.length) {
        // Copied only if whole and matching its hash: a damaged blob is left where it is for verify to name.
        const bytes = await st.blobs.sealed(ref);
        if (bytes) copy.push({ id, bytes });
      } else if (st.older.length && (!st.blobs.current(id) || mine.has(id))) {
        // Only under an older key (a rotation, epochs.ts): sealed again under this epoch's, so that epoch's files may go.
        // An own blob another computer's rotation sealed again (only its pack holds it now) is taken in too: else it is
        // never in this computer's index, and no own file is ever removed again.
        const bytes = await st.blobs.sealed(ref);
        const opened = bytes && st.blobs.openAny(id, bytes);
        if (!opened) continue;
        copy.push({ id, bytes: sealBlob2(st.o.vaultId, st.o.keys, opened.kind, opened.plain, fromHex(id)).bytes });
        wipe(opened.plain);
      }
    }
    let pack: string | undefined;
    if (copy.length) {
      pack = newPackName();
      let off = PACK_MAGIC.length;
      for (const c of copy) {
        index.set(c.id, { file: pack, off, len: c.bytes.length });
        off += c.bytes.length;
      }
      await writeImmutable(fsx, dir, pack, me, concat(PACK_MAGIC, ...copy.map((c) => c.bytes)));
      for (const [id, l] of index) if (l.file === pack) st.blobs.add(id, { dev: me, ...l });
    }
    const files = new Map<string, number>();
    for (const s of own.segments) files.set(s.name, s.size);
    for (const [p, size] of packSize) files.set(p, size);
    if (pack) files.set(pack, (await fsx.stat(path.join(dir, pack))).size);
    // Every live blob this device wrote must be in the new index before anything of its own is removed.
    const unplaced = [...live.keys()].filter((id) => mine.has(id) && !index.has(id));
    // What the state holds of this device, not the next seq: a checkpoint never claims an own op it does not hold.
    const seq = st.state.frontier.get(me) ?? 0;
    const name = newName('c', seq);
    const bytes = sealCheckpoint(st.codec, st.o.vaultId, st.o.keys.manifest, { device: me, epoch: st.o.epoch, name }, { seq, state: st.state, index, files, counter });
    await writeImmutable(fsx, dir, name, me, bytes);
    st.sinceCheckpoint = 0;
    st.bytesSinceCheckpoint = 0;
    st.liveAtCheckpoint = 0;
    for (const l of index.values()) st.liveAtCheckpoint += l.len;

    // Tidy: the new checkpoint and the newest one before it stay.
    const older = own.checkpoints.filter((c) => c !== name).sort((a, b) => seqOfName(b) - seqOfName(a) || (a < b ? 1 : -1));
    const prevName = older[0];
    const prev = prevName ? await st.readCheckpoint(me, prevName) : undefined;
    for (const c of older.slice(1)) await fsx.unlink(path.join(dir, c));
    if (!prev || unplaced.length) return;
    const indexed = new Set([...[...index.values()].map((l) => l.file), ...[...prev.index.values()].map((l) => l.file)]);
    for (const s of own.segments) {
      // (A sync engine's copy of a segment may hold another copy of this computer's records: never removed here.)
      if (s.damage.length || s.unknown || indexed.has(s.name) || !parseFileName(s.name)) continue;
      let last = seqOfName(s.name) - 1;
      for (const r of s.records) if (r.seq !== undefined) last = Math.max(last, r.seq + r.count - 1);
      if (last > prev.seq) continue;
      await fsx.unlink(path.join(dir, s.name));
      st.blobs.dropFile(me, s.name);
      st.scanner.forget(me, s.name);
    }
    for (const p of own.packs) {
      if (indexed.has(p)) continue;
      await fsx.unlink(path.join(dir, p));
      st.blobs.dropFile(me, p);
    }
    await fsx.syncDir(dir);
  });
}

