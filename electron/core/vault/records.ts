/**
 * The byte formats of the manifest and of segment files, shared by load,
 * append, checkpoint and verify:
 *
 *   manifest MAGIC ‖ vaultId ‖ nonce ‖ AEAD(padded JSON snapshot)
 *   segment  MAGIC ‖ vaultId ‖ segId, then records:
 *   record   [u32 len][u32 ~len][u32 metaLen][nonce ‖ AEAD(meta)][blob]
 *
 * The meta (a generation and one manifest change) is authenticated with the
 * segment and the record's offset as associated data, so a record cannot be
 * moved, reordered or copied into another segment or vault unnoticed.
 */
import { concat, fromUtf8, hash, ID_BYTES, NONCE_BYTES, open, padded, seal, sameBytes, toHex, unpadded, utf8, wipe } from './crypto';
import type { Op, Snapshot } from './state';

const MANIFEST_MAGIC = utf8('MNEMOMF1');
const SEGMENT_MAGIC = utf8('MNEMOSG1');
const RECORD_MAGIC = utf8('MNEMORC1');
export const SEG_HEADER = 8 + ID_BYTES + ID_BYTES;

export interface Record {
  g: number;
  op: Op;
}

/** What a scan of a segment finds at each position. */
export type ScanItem =
  | { kind: 'record'; pos: number; next: number; rec: Record | undefined; blob: Uint8Array }
  /** The file ends inside a record: an append that never completed. */
  | { kind: 'torn'; pos: number }
  /** The length fields disagree: nothing after this can be trusted. */
  | { kind: 'broken'; pos: number };

const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);
function le32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
}
function frame(n: number): Uint8Array {
  const out = new Uint8Array(8);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, n, true);
  dv.setUint32(4, ~n >>> 0, true);
  return out;
}
function le64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), true);
  return out;
}
export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
}

/** Encodes and decodes one vault's segment records under its journal key. */
export class SegmentCodec {
  constructor(
    private readonly vaultId: Uint8Array,
    private readonly key: Uint8Array,
  ) {}

  header(segId: string): Uint8Array {
    return concat(SEGMENT_MAGIC, this.vaultId, hexBytes(segId));
  }

  private ad(segId: string, pos: number): Uint8Array {
    return concat(RECORD_MAGIC, this.vaultId, hexBytes(segId), le64(pos));
  }

  /** One record for position `pos` of `segId`; `blobAt` is where its blob will start in the file. */
  encode(segId: string, pos: number, rec: Record, blob: Uint8Array): { bytes: Uint8Array; blobAt: number } {
    const meta = seal(this.key, padded(utf8(JSON.stringify(rec))), this.ad(segId, pos));
    const body = concat(le32(meta.length), meta, blob);
    return { bytes: concat(frame(body.length), body), blobAt: pos + 8 + 4 + meta.length };
  }

  /**
   * Every record of a segment file in order; blob refs in ops get their place
   * in this file. `bytes` holds the file from offset `base` on (a record must
   * start there): a tail read by a catch-up, or by default the whole file.
   */
  *scan(segId: string, bytes: Uint8Array, base = 0): Generator<ScanItem> {
    let pos = Math.max(SEG_HEADER, base);
    const end = base + bytes.length;
    while (pos < end) {
      const at = pos - base;
      if (end - pos < 8) return yield { kind: 'torn', pos };
      const len = u32(bytes, at);
      if ((~len >>> 0) !== u32(bytes, at + 4)) return yield { kind: 'broken', pos };
      if (pos + 8 + len > end) return yield { kind: 'torn', pos };
      const body = bytes.subarray(at + 8, at + 8 + len);
      const metaLen = body.length >= 4 ? u32(body, 0) : -1;
      let rec: Record | undefined;
      let blob: Uint8Array = new Uint8Array(0);
      if (metaLen >= 0 && metaLen <= body.length - 4) {
        const meta = open(this.key, body.subarray(4, 4 + metaLen), this.ad(segId, pos));
        blob = body.subarray(4 + metaLen);
        if (meta) {
          rec = JSON.parse(fromUtf8(unpadded(meta))) as Record;
          if ('b' in rec.op) rec = blob.length === rec.op.b.len ? { ...rec, op: { ...rec.op, b: { ...rec.op.b, seg: segId, off: pos + 8 + 4 + metaLen } } } : undefined;
        }
      }
      yield { kind: 'record', pos, next: pos + 8 + len, rec, blob };
      pos += 8 + len;
    }
  }

  /** Problems in one segment file: header, framing, record authentication, blob hashes. */
  verify(segId: string, bytes: Uint8Array): string[] {
    const name = `segments/${segId}`;
    if (bytes.length < SEG_HEADER || !sameBytes(bytes.subarray(0, SEG_HEADER), this.header(segId))) return [`${name}: header damaged`];
    const problems: string[] = [];
    for (const item of this.scan(segId, bytes)) {
      if (item.kind !== 'record') problems.push(`${name}: unreadable record at offset ${item.pos}`);
      else if (!item.rec) problems.push(`${name}: record at offset ${item.pos} fails authentication`);
      else if ('b' in item.rec.op && toHex(hash(item.blob)) !== item.rec.op.b.h) problems.push(`${name}: blob at offset ${item.rec.op.b.off} fails its hash`);
    }
    return problems;
  }

  /** True if the file starts with this segment's header. */
  headerOk(segId: string, bytes: Uint8Array): boolean {
    return bytes.length >= SEG_HEADER && sameBytes(bytes.subarray(0, SEG_HEADER), this.header(segId));
  }
}

/** Where a manifest file's nonce lies (after MAGIC ‖ vaultId) and its length. */
const MANIFEST_NONCE_AT = 8 + ID_BYTES;
export const MANIFEST_IDENTITY_BYTES = MANIFEST_NONCE_AT + NONCE_BYTES;

/**
 * A manifest file's identity: its nonce, fresh and random at every write, so
 * two manifest files with the same identity are the same write. Read from the
 * file's first bytes, it tells a catch-up cheaply whether anyone checkpointed.
 */
export function manifestIdentity(raw: Uint8Array): string | undefined {
  return raw.length >= MANIFEST_IDENTITY_BYTES ? toHex(raw.subarray(MANIFEST_NONCE_AT, MANIFEST_IDENTITY_BYTES)) : undefined;
}

/** The manifest file's bytes for `snap`. */
export function sealManifest(key: Uint8Array, vaultId: Uint8Array, snap: Snapshot): Uint8Array {
  const head = concat(MANIFEST_MAGIC, vaultId);
  const body = padded(utf8(JSON.stringify(snap)));
  const out = concat(head, seal(key, body, head));
  wipe(body);
  return out;
}

/** The snapshot in a manifest file's bytes, or undefined if they fail authentication. */
export function openManifest(key: Uint8Array, vaultId: Uint8Array, raw: Uint8Array): Snapshot | undefined {
  const head = concat(MANIFEST_MAGIC, vaultId);
  const plain = sameBytes(raw.subarray(0, head.length), head) ? open(key, raw.subarray(head.length), head) : undefined;
  if (!plain) return undefined;
  const snap = JSON.parse(fromUtf8(unpadded(plain))) as Snapshot;
  wipe(plain);
  return snap;
}
