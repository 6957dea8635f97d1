/**
 * Blobs as the store keeps them: sealed in memory (magic ‖ vaultId ‖ blobId ‖
 * AEAD(padded plaintext)), and read back from a segment with their hash and
 * authentication checked. Segment read handles are opened lazily and shared.
 */
import { concat, hash, ID_BYTES, open, padded, sameBytes, seal, toHex, uniqueBytes, unpadded, utf8, wipe } from './crypto';
import path from 'node:path';
import type { VaultFile, VaultFs } from './fsio';
import { hexBytes } from './records';
import type { BlobRef, State } from './state';
import { VaultError } from './types';
import { m } from '../i18n/message';

const MAGIC = {
  blobs: utf8('MNEMOBL1'),
  internal: utf8('MNEMOIN1'),
};

export interface StoreKeys {
  manifest: Uint8Array;
  journal: Uint8Array;
  blobs: Uint8Array;
  internal: Uint8Array;
}
export type BlobKind = 'blobs' | 'internal';

/** A blob sealed in memory, ready to travel in a journal record. */
export interface SealedBlob {
  bytes: Uint8Array;
  ref: BlobRef;
}

export const segmentFile = (id: string): string => `segments/${id}`;

/** Seals and reads blobs; the Store builds the journal and manifests on top. */
export class BlobStore {
  private readonly readers = new Map<string, Promise<VaultFile>>();
  /** Set when the session ends (a lock): its keys are wiped and files closed, so a read in flight fails for that, not for damage. */
  private ended = false;

  constructor(
    readonly dir: string,
    protected readonly vaultId: Uint8Array,
    protected readonly keys: StoreKeys,
    readonly fs: VaultFs,
  ) {}

  /** Seals plaintext as a blob; the caller zeroes `plain` if it is sensitive. */
  sealBlob(kind: BlobKind, plain: Uint8Array): SealedBlob {
    const id = uniqueBytes(ID_BYTES);
    const ad = concat(MAGIC[kind], this.vaultId, id);
    const body = padded(plain);
    const bytes = concat(ad, seal(this.keys[kind], body, ad));
    wipe(body);
    return { bytes, ref: { id: toHex(id), seg: '', off: 0, len: bytes.length, h: toHex(hash(bytes)) } };
  }

  /** Reads, hash-checks and decrypts a blob. DAMAGED if any of it fails. */
  async readBlob(kind: BlobKind, ref: BlobRef, subject: string): Promise<Uint8Array> {
    const damaged = () =>
      this.ended
        ? new VaultError('LOCKED', m('errors:vault.lockedWhileReading'))
        : new VaultError('DAMAGED', m('errors:vault.blobDamaged', { subject }), subject);
    const bytes = await this.readRaw(ref);
    if (!bytes) throw damaged();
    const ad = concat(MAGIC[kind], this.vaultId, hexBytes(ref.id));
    if (!sameBytes(bytes.subarray(0, ad.length), ad)) throw damaged();
    const plain = open(this.keys[kind], bytes.subarray(ad.length), ad);
    if (!plain) throw damaged();
    const out = unpadded(plain).slice();
    wipe(plain);
    return out;
  }

  /** A blob's sealed bytes as stored, if they are all there and match their hash. */
  async readRaw(ref: BlobRef): Promise<Uint8Array | undefined> {
    try {
      const fh = await this.reader(ref.seg);
      const bytes = new Uint8Array(ref.len);
      const bytesRead = await fh.read(bytes, ref.off);
      return bytesRead === ref.len && toHex(hash(bytes)) === ref.h ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  private reader(seg: string): Promise<VaultFile> {
    let fh = this.readers.get(seg);
    if (!fh) {
      fh = this.fs.open(path.join(this.dir, segmentFile(seg)), 'read');
      fh.catch(() => this.readers.delete(seg));
      this.readers.set(seg, fh);
    }
    return fh;
  }

  /** Closes the read handle of a segment about to be removed. */
  protected async dropReader(seg: string): Promise<void> {
    const fh = this.readers.get(seg);
    this.readers.delete(seg);
    await fh?.then((h) => h.close()).catch(() => undefined);
  }

  /** The session is ending: called before its keys are wiped, so reads still under way say "locked". */
  markEnded(): void {
    this.ended = true;
  }

  protected async closeReaders(): Promise<void> {
    for (const fh of this.readers.values()) await fh.then((h) => h.close()).catch(() => undefined);
    this.readers.clear();
  }
}

/** Sealed bytes of every blob `state` still references, history and internal values included. */
export function liveSize(state: State): number {
  let n = 0;
  for (const b of state.liveBlobs()) n += b.len;
  return n;
}

/** Segment ids that hold at least one blob `state` still references. */
export function liveSegments(state: State): Set<string> {
  const live = new Set<string>();
  for (const b of state.liveBlobs()) live.add(b.seg);
  return live;
}
