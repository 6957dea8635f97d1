/**
 * A device's checkpoint and blob packs in format v2 (docs/sync-design.md §4).
 *
 *   checkpoint  c-<seq>-<rand>: the segment header of its name, then
 *               nonce ‖ AEAD_manifestKey(padded JSON), AD = MNEMOCK2 ‖ vaultId ‖ device ‖ epoch ‖ name
 *   pack        p-<rand16>: MNEMOPK2, then sealed blobs back to back
 *
 * A checkpoint holds the device's whole joined state, its own files with
 * their sizes (what a reader should find), and the blob location index of its
 * own files: blob id → file, offset, length. Both are written once under a
 * temp name of the device and renamed into place, never changed afterwards.
 */
import { concat, fromHex, fromUtf8, open, padded, seal, unpadded, utf8 } from '../crypto';
import { decodeState, encodeState } from './canonical';
import type { SyncState } from './crdt';
import type { SegmentCodec2, SegmentId } from './records2';
import { SEG2_HEADER } from './records2';

const CHECKPOINT_MAGIC = utf8('MNEMOCK2');
export const PACK_MAGIC = utf8('MNEMOPK2');
const FORMAT = 1;

/** Where a blob lies in one device's files. */
export interface BlobLoc {
  /** The file's name in its device's epoch folder. */
  file: string;
  off: number;
  len: number;
}

export interface Checkpoint {
  /** The highest own seq the state covers (also in the name). */
  seq: number;
  state: SyncState;
  /** Own blobs by id. */
  index: Map<string, BlobLoc>;
  /** Own files (segments and packs) and their sizes when it was written. */
  files: Map<string, number>;
  /** The header counter last seen. */
  counter: number;
  /** Read from an older key epoch's folder (not stored: where it was found). */
  ep?: string;
}

interface Body {
  format: number;
  seq: number;
  state: string;
  index: Array<[string, string, number, number]>;
  files: Array<[string, number]>;
  counter: number;
}

function ad(vaultId: Uint8Array, seg: SegmentId): Uint8Array {
  return concat(CHECKPOINT_MAGIC, vaultId, fromHex(seg.device), fromHex(seg.epoch), utf8(seg.name));
}

/** The bytes of a checkpoint file. */
export function sealCheckpoint(codec: SegmentCodec2, vaultId: Uint8Array, key: Uint8Array, seg: SegmentId, c: Checkpoint): Uint8Array {
  const body: Body = {
    format: FORMAT,
    seq: c.seq,
    state: encodeState(c.state),
    index: [...c.index].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, l]) => [id, l.file, l.off, l.len]),
    files: [...c.files].sort(([a], [b]) => (a < b ? -1 : 1)),
    counter: c.counter,
  };
  return concat(codec.header(seg), seal(key, padded(utf8(JSON.stringify(body))), ad(vaultId, seg)));
}

/**
 * The checkpoint in `bytes`, or undefined when it fails authentication or is
 * not whole (still arriving). Throws on an authentic checkpoint of another
 * format: a newer build wrote it.
 */
export function openCheckpoint(codec: SegmentCodec2, vaultId: Uint8Array, key: Uint8Array, seg: SegmentId, bytes: Uint8Array): Checkpoint | undefined {
  if (!codec.headerOk(seg, bytes)) return undefined;
  const plain = open(key, bytes.subarray(SEG2_HEADER), ad(vaultId, seg));
  if (!plain) return undefined;
  const body = JSON.parse(fromUtf8(unpadded(plain))) as Body;
  if (body.format !== FORMAT) throw new Error(`checkpoint format ${String(body.format)}`);
  return {
    seq: body.seq,
    state: decodeState(body.state),
    index: new Map(body.index.map(([id, file, off, len]) => [id, { file, off, len }])),
    files: new Map(body.files),
    counter: body.counter,
  };
}
