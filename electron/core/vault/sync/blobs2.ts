/**
 * Blobs in format v2 (docs/sync-design.md §1, §4): sealed exactly as v1 seals
 * them (magic ‖ vaultId ‖ blobId ‖ AEAD), so a blob's bytes are valid in any
 * file of any device; where each lies is an index per device, learnt from
 * the records scanned (inline blobs) and from each device's checkpoint
 * (blobs its compaction moved into packs). A v1 blob (pseudo-device L) is
 * read through the v1 Store. Handles are opened per read and closed again:
 * another device's file may be replaced by its sync engine at any moment.
 */
import path from 'node:path';
import { concat, hash, ID_BYTES, keyedHash, open, padded, sameBytes, seal, toHex, uniqueBytes, unpadded, utf8, wipe } from '../crypto';
import type { BlobKind, StoreKeys } from '../blobs';
import type { VaultFs } from '../fsio';
import { hexBytes } from '../records';
import type { BlobRef } from '../state';
import type { Store } from '../store';
import { VaultError } from '../types';
import type { SyncState } from './crdt';
import { deviceDir, listDevices } from './layout';
import type { BlobRef2 } from './op';
import type { OldEpoch } from './epochs';
import { m } from '../../i18n/message';

const MAGIC: Record<BlobKind, Uint8Array> = { blobs: utf8('MNEMOBL1'), internal: utf8('MNEMOIN1') };
/** Compaction makes packs of about 16 MiB; a larger file is not read whole to look for a blob (§5: never unbounded). */
const PACK_SEARCH_MAX = 64 * 1024 * 1024;

/** A blob's place: device, file in its epoch folder, offset, sealed length. */
export interface Place {
  dev: string;
  file: string;
  off: number;
  len: number;
  /** The older key epoch whose folder holds the file (undefined: the current one). */
  ep?: string;
}

export class BlobIndex {
  private readonly places = new Map<string, Place[]>();
  /** v1's refs by blob id, and the v1 store that reads them (`ep`: under an older epoch's keys). */
  v1: { store: Store; refs: Map<string, BlobRef>; ep?: string } | undefined;
  /** Set when the session ends: a read then fails as "locked", not as damage. */
  ended = false;

  constructor(
    private readonly fsx: VaultFs,
    private readonly root: string,
    private readonly vaultId: Uint8Array,
    private readonly keys: StoreKeys,
    private readonly epoch: string,
    private readonly older: readonly OldEpoch[] = [],
  ) {}

  /**
   * Notes where a blob lies (a place already known is not added twice). The length counts: a place guessed from a pack
   * seen before all of it had arrived (`fromPacks`) must not hide the true one a checkpoint names later.
   */
  add(id: string, p: Place): void {
    const list = this.places.get(id);
    if (!list) this.places.set(id, [p]);
    else if (!list.some((q) => q.dev === p.dev && q.file === p.file && q.off === p.off && q.len === p.len && q.ep === p.ep)) list.push(p);
  }

  /** Forgets every place in a device's file (it was removed; `ep`: in an older epoch's folder). */
  dropFile(dev: string, file: string, ep?: string): void {
    for (const [id, list] of this.places) {
      const left = list.filter((p) => !(p.dev === dev && p.file === file && p.ep === ep));
      if (left.length) this.places.set(id, left);
      else this.places.delete(id);
    }
  }

  /** Where `id` lies in device `dev`'s own files, if known. */
  placesOf(id: string, dev?: string): Place[] {
    return (this.places.get(id) ?? []).filter((p) => dev === undefined || p.dev === dev);
  }

  /** The sealed bytes of a blob, found and hash-checked, or undefined when no known place holds them now. */
  async sealed(ref: BlobRef2): Promise<Uint8Array | undefined> {
    const v1 = this.v1?.refs.get(ref.id);
    if (v1 && this.v1) {
      const bytes = await this.v1.store.readRaw(v1);
      if (bytes) return bytes;
    }
    for (const p of this.placesOf(ref.id)) {
      const bytes = await this.readAt(p).catch(() => undefined);
      if (!bytes || bytes.length !== ref.len) continue;
      if (toHex(hash(bytes)) === ref.h) return bytes;
      // Sealed again under a newer key (a rotation: compact2.ts `reseal`): other bytes, the same blob, which its key tells.
      if (this.opens(ref.id, bytes)) return bytes;
    }
    return undefined;
  }

  /** True when a current-epoch place holds `id`, or it is a v1 blob of this epoch (nothing to seal again). */
  current(id: string): boolean {
    return (this.v1?.refs.has(id) && this.v1.ep === undefined) || this.placesOf(id).some((p) => p.ep === undefined);
  }

  /** True when `bytes` open as blob `id` of either kind under any known key. */
  private opens(id: string, bytes: Uint8Array): boolean {
    for (const kind of ['blobs', 'internal'] as const) {
      const plain = this.openSealed(kind, id, bytes);
      if (plain) {
        wipe(plain);
        return true;
      }
    }
    return false;
  }

  /** The kind and plain bytes of sealed blob `id`, under whichever known key opens it. */
  openAny(id: string, bytes: Uint8Array): { kind: BlobKind; plain: Uint8Array } | undefined {
    for (const kind of ['blobs', 'internal'] as const) {
      const plain = this.openSealed(kind, id, bytes);
      if (plain) return { kind, plain };
    }
    return undefined;
  }

  private async readAt(p: Place): Promise<Uint8Array> {
    const fh = await this.fsx.open(path.join(this.root, deviceDir(p.dev, p.ep ?? this.epoch), p.file), 'read');
    try {
      const out = new Uint8Array(p.len);
      const n = await fh.read(out, p.off);
      return out.subarray(0, n);
    } finally {
      await fh.close();
    }
  }

  /** Packs searched by `fromPacks`, by device, name and size: a pack never changes, so each is read once. */
  private readonly searched = new Set<string>();

  /**
   * Looks for a blob no known place holds in every pack not searched yet, by its sealed prefix (magic ‖ vaultId ‖
   * blobId). A sync engine may bring a device's new pack and the removal of the segment its compaction emptied before
   * the checkpoint that says what the pack holds (Syncthing did: the device had already replaced that checkpoint when
   * the engine came to pull it): the bytes are here, only their place is not known. Every blob found is noted; the
   * bytes are taken only if their length and hash are the ref's.
   */
  private async fromPacks(ref: BlobRef2): Promise<Uint8Array | undefined> {
    const heads = (['blobs', 'internal'] as const).map((k) => concat(MAGIC[k], this.vaultId));
    for (const dev of await listDevices(this.fsx, this.root)) {
      const dir = path.join(this.root, deviceDir(dev, this.epoch));
      for (const file of await this.fsx.readdir(dir).catch(() => [] as string[])) {
        if (!/^p-[0-9a-f]{16}$/.test(file)) continue;
        // By size too: an engine that writes in place (not by rename) may show a pack before all of it is here.
        const size = await this.fsx.stat(path.join(dir, file)).then((st) => st.size, () => -1);
        const key = `${dev}/${file}/${size}`;
        if (size < 0 || size > PACK_SEARCH_MAX || this.searched.has(key)) continue;
        const bytes = await readWhole(this.fsx, path.join(dir, file), size).catch(() => undefined);
        if (!bytes) continue;
        this.searched.add(key);
        // Blobs lie back to back: each runs to the next one's start (or the end).
        const starts: Array<{ at: number; head: number }> = [];
        for (const head of heads) for (let at = indexOf(bytes, head, 0); at >= 0; at = indexOf(bytes, head, at + 1)) starts.push({ at, head: head.length });
        starts.sort((x, y) => x.at - y.at);
        for (const [n, { at, head }] of starts.entries()) {
          if (at + head + ID_BYTES > bytes.length) continue;
          const end = starts[n + 1]?.at ?? bytes.length;
          this.add(toHex(bytes.subarray(at + head, at + head + ID_BYTES)), { dev, file, off: at, len: end - at });
        }
      }
    }
    return this.sealed(ref);
  }

  /** Opens sealed bytes as a blob of `kind` (under this epoch's key, else an older one's); undefined when they fail. */
  openSealed(kind: BlobKind, id: string, bytes: Uint8Array): Uint8Array | undefined {
    const ad = concat(MAGIC[kind], this.vaultId, hexBytes(id));
    if (!sameBytes(bytes.subarray(0, ad.length), ad)) return undefined;
    for (const keys of [this.keys, ...this.older.map((e) => e.keys)]) {
      const plain = open(keys[kind], bytes.subarray(ad.length), ad);
      if (!plain) continue;
      const out = unpadded(plain).slice();
      wipe(plain);
      return out;
    }
    return undefined;
  }

  /** Reads and decrypts a blob: DAMAGED (or LOCKED, once the session ended) when it cannot be read. `refresh` looks again once. */
  async read(kind: BlobKind, ref: BlobRef2, subject: string, refresh?: () => Promise<void>): Promise<Uint8Array> {
    let bytes = await this.sealed(ref);
    if (!bytes && refresh && !this.ended) {
      await refresh();
      bytes = (await this.sealed(ref)) ?? (await this.fromPacks(ref));
    }
    const plain = bytes && this.openSealed(kind, ref.id, bytes);
    if (plain) return plain;
    if (this.ended) throw new VaultError('LOCKED', m('errors:vault.lockedWhileReading'));
    throw new VaultError('DAMAGED', m('errors:vault.blobDamagedOrArriving', { subject }), subject);
  }
}

/** A blob sealed as v1 seals it (the place-free associated data makes it valid in any file). */
export function sealBlob2(vaultId: Uint8Array, keys: StoreKeys, kind: BlobKind, plain: Uint8Array, id = uniqueBytes(ID_BYTES)): { bytes: Uint8Array; ref: BlobRef2 } {
  const ad = concat(MAGIC[kind], vaultId, id);
  const body = padded(plain);
  const bytes = concat(ad, seal(keys[kind], body, ad));
  wipe(body);
  return { bytes, ref: { id: toHex(id), len: bytes.length, h: toHex(hash(bytes)) } };
}

/** The content id of a text (§2.1): keyed BLAKE2b under the content-id subkey, hex. */
export function contentId(key: Uint8Array, plain: Uint8Array): string {
  return toHex(keyedHash(key, plain));
}

/**
 * The blobs `s` still needs, by id: every version neither forgotten nor
 * purged, each internal key's heads, and its other values not forgotten (a
 * merge may read one as its base: they go only once a `forget` says so, so
 * that every computer agrees which bases are gone).
 */
export function liveBlobs(s: SyncState): Map<string, BlobRef2> {
  const live = new Map<string, BlobRef2>();
  for (const [fid, f] of s.files) {
    const purged = s.purged.get(fid);
    for (const [vid, v] of f.versions) if (!s.forgotten.has(vid) && !purged?.has(vid)) live.set(v.b.id, v.b);
  }
  for (const k of s.kv.values()) {
    const named = new Set<string>();
    for (const v of k.vals.values()) for (const p of v.par) named.add(p);
    for (const d of k.dels.values()) for (const p of d.par) named.add(p);
    for (const [vid, v] of k.vals) if (!named.has(vid) || !s.forgotten.has(vid)) live.set(v.b.id, v.b);
  }
  return live;
}

/**
 * The blobs of versions a purge removed (emptying the trash, on any computer): each computer copies them out of its own
 * packs (compact2.ts), which after a rotation hold other computers' blobs too (sealed again there).
 */
export function purgedBlobs(s: SyncState): Set<string> {
  const out = new Set<string>();
  for (const [fid, vids] of s.purged) {
    const f = s.files.get(fid);
    for (const vid of vids) {
      const id = f?.versions.get(vid)?.b.id;
      if (id) out.add(id);
    }
  }
  return out;
}

/** The first index of `needle` in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(Buffer.from(needle.buffer, needle.byteOffset, needle.byteLength), from);
}

/** A file's first `size` bytes (a pack, as large as it was when stat'ed). */
async function readWhole(fsx: VaultFs, file: string, size: number): Promise<Uint8Array> {
  const fh = await fsx.open(file, 'read');
  try {
    const out = new Uint8Array(size);
    const n = await fh.read(out, 0);
    return out.subarray(0, n);
  } finally {
    await fh.close();
  }
}
