/**
 * The byte format of a format-v2 segment (docs/sync-design.md §2.2). Each
 * device writes only its own, under `devices/<dev>/<ep>/`:
 *
 *   name     j-<firstSeq:12 hex>-<rand:8 hex>   (c-… for a checkpoint)
 *   header   MNEMOSG2 ‖ vaultId ‖ deviceId ‖ epochId ‖ firstSeq(u64) ‖ rand
 *   record   [u32 len][u32 ~len][u32 metaLen][nonce ‖ AEAD(meta)][blob]   (as v1)
 *   AD       MNEMORC2 ‖ vaultId ‖ deviceId ‖ epochId ‖ name ‖ pos(u64)
 *
 * The associated data binds the device, the key epoch, the segment and the
 * record's offset, so a record copied into another device's folder, another
 * epoch, another segment or another offset fails to open. The header repeats
 * what the name and the folder say, so a reader sees gaps ("seq 100–199
 * missing") and misplaced files before decrypting anything. v1's records.ts
 * stays as it is for the pseudo-device L.
 */
import { concat, fromHex, fromUtf8, hash, ID_BYTES, open, padded, sameBytes, seal, toHex, unpadded, utf8 } from '../crypto';
import { isRecordMeta, type RecordMeta } from './op';
import { isDeviceId } from './ids';

const SEGMENT_MAGIC = utf8('MNEMOSG2');
const RECORD_MAGIC = utf8('MNEMORC2');
const RAND_BYTES = 4;
/** Bytes before the first record. */
export const SEG2_HEADER = 8 + ID_BYTES * 3 + 8 + RAND_BYTES;

/** Which segment a record belongs to: its device, key epoch (32 hex) and file name. */
export interface SegmentId {
  device: string;
  epoch: string;
  name: string;
}

export type SegmentKind = 'j' | 'c';
const NAME = /^([jc])-([0-9a-f]{12})-([0-9a-f]{8})$/;

/** A segment's file name: kind, first seq (12 hex, up to 2⁴⁸−1) and 8 hex random characters. */
export function segmentName(kind: SegmentKind, firstSeq: number, rand: string): string {
  if (!Number.isSafeInteger(firstSeq) || firstSeq < 0 || firstSeq >= 2 ** 48) throw new Error('segmentName: seq out of range');
  if (!/^[0-9a-f]{8}$/.test(rand)) throw new Error('segmentName: rand must be 8 hex characters');
  return `${kind}-${firstSeq.toString(16).padStart(12, '0')}-${rand}`;
}

/** The parts of a segment's file name, or undefined for any other name (another device's temp file, junk). */
export function parseSegmentName(name: string): { kind: SegmentKind; firstSeq: number; rand: string } | undefined {
  const m = NAME.exec(name);
  return m ? { kind: m[1] as SegmentKind, firstSeq: parseInt(m[2]!, 16), rand: m[3]! } : undefined;
}

/** What a scan finds at each position of a segment. */
export type ScanItem2 =
  /** A whole record. `meta` is undefined when it fails authentication or is of a shape this build does not know (`bad` says which). */
  | { kind: 'record'; pos: number; next: number; meta: RecordMeta | undefined; bad?: 'auth' | 'shape'; blob: Uint8Array; blobAt: number }
  /** The file ends inside a record: an append still in flight or still arriving, not tamper. */
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

function checkId(seg: SegmentId): { kind: SegmentKind; firstSeq: number; rand: string } {
  const parts = parseSegmentName(seg.name);
  if (!parts || !isDeviceId(seg.device) || !/^[0-9a-f]{32}$/.test(seg.epoch)) throw new Error('records2: malformed segment id');
  return parts;
}

/** Encodes and decodes one vault's v2 records under its journal key. */
export class SegmentCodec2 {
  constructor(
    private readonly vaultId: Uint8Array,
    private readonly key: Uint8Array,
  ) {}

  /** The header bytes a segment with this id starts with. */
  header(seg: SegmentId): Uint8Array {
    const { firstSeq, rand } = checkId(seg);
    return concat(SEGMENT_MAGIC, this.vaultId, fromHex(seg.device), fromHex(seg.epoch), le64(firstSeq), fromHex(rand));
  }

  /** True if `bytes` start with the header this segment id must have. */
  headerOk(seg: SegmentId, bytes: Uint8Array): boolean {
    return bytes.length >= SEG2_HEADER && sameBytes(bytes.subarray(0, SEG2_HEADER), this.header(seg));
  }

  private ad(seg: SegmentId, pos: number): Uint8Array {
    checkId(seg);
    return concat(RECORD_MAGIC, this.vaultId, fromHex(seg.device), fromHex(seg.epoch), utf8(seg.name), le64(pos));
  }

  /** One record for offset `pos` of `seg`; `blobAt` is where its blob starts in the file. */
  encode(seg: SegmentId, pos: number, meta: RecordMeta, blob: Uint8Array = new Uint8Array(0)): { bytes: Uint8Array; blobAt: number } {
    if (pos < SEG2_HEADER) throw new Error('records2: a record starts after the header');
    const sealed = seal(this.key, padded(utf8(JSON.stringify(meta))), this.ad(seg, pos));
    const body = concat(le32(sealed.length), sealed, blob);
    return { bytes: concat(frame(body.length), body), blobAt: pos + 8 + 4 + sealed.length };
  }

  /**
   * Every record of a segment in order. `bytes` holds the file from offset
   * `base` on (a record must start there): a tail, or by default the whole
   * file. A record whose op names a blob (`op.b`: put, kput, blob, reloc)
   * carries it inline and must carry exactly that many bytes, else it counts
   * as failing authentication.
   */
  *scan(seg: SegmentId, bytes: Uint8Array, base = 0): Generator<ScanItem2> {
    let pos = Math.max(SEG2_HEADER, base);
    const end = base + bytes.length;
    while (pos < end) {
      const at = pos - base;
      if (end - pos < 8) return yield { kind: 'torn', pos };
      const len = u32(bytes, at);
      if ((~len >>> 0) !== u32(bytes, at + 4)) return yield { kind: 'broken', pos };
      if (pos + 8 + len > end) return yield { kind: 'torn', pos };
      const body = bytes.subarray(at + 8, at + 8 + len);
      const metaLen = body.length >= 4 ? u32(body, 0) : -1;
      let meta: RecordMeta | undefined;
      let bad: 'auth' | 'shape' | undefined = 'auth';
      let blob: Uint8Array = new Uint8Array(0);
      if (metaLen >= 0 && metaLen <= body.length - 4) {
        const plain = open(this.key, body.subarray(4, 4 + metaLen), this.ad(seg, pos));
        blob = body.subarray(4 + metaLen);
        if (plain) {
          const parsed = parseMeta(plain);
          const op = parsed?.op;
          const blobFits = !op || !('b' in op) || blob.length === op.b.len;
          if (parsed && blobFits) [meta, bad] = [parsed, undefined];
          else bad = parsed ? 'auth' : 'shape';
        }
      }
      yield { kind: 'record', pos, next: pos + 8 + len, meta, ...(bad ? { bad } : {}), blob, blobAt: pos + 8 + 4 + Math.max(0, metaLen) };
      pos += 8 + len;
    }
  }

  /** Problems in one segment file: header, framing, authentication, blob hashes. A torn tail is not one (it may still be arriving). */
  verify(seg: SegmentId, bytes: Uint8Array): string[] {
    const name = `devices/${seg.device}/${seg.epoch.slice(0, 8)}/${seg.name}`;
    if (!this.headerOk(seg, bytes)) return [`${name}: header damaged or misplaced`];
    const problems: string[] = [];
    for (const item of this.scan(seg, bytes)) {
      if (item.kind === 'broken') problems.push(`${name}: unreadable record at offset ${item.pos}`);
      else if (item.kind === 'record' && !item.meta) problems.push(`${name}: record at offset ${item.pos} ${item.bad === 'shape' ? 'is of an unknown kind' : 'fails authentication'}`);
      else if (item.kind === 'record' && item.meta && 'b' in item.meta.op && toHex(hash(item.blob)) !== item.meta.op.b.h) {
        problems.push(`${name}: blob at offset ${item.blobAt} fails its hash`);
      }
    }
    return problems;
  }
}

function parseMeta(plain: Uint8Array): RecordMeta | undefined {
  try {
    const meta: unknown = JSON.parse(fromUtf8(unpadded(plain)));
    return isRecordMeta(meta) ? meta : undefined;
  } catch {
    return undefined;
  }
}
