/**
 * The ops of format v2 (docs/sync-design.md §2.3) and the record meta that
 * carries one. An op names what it replaced (`par`), so concurrency is read
 * from the data; its identity (`vid`), stamp and wall-clock time come from the
 * record around it. `isRecordMeta` checks the shape of a decrypted meta: a
 * record that authenticates was written by a holder of the key, but perhaps
 * by a newer build, and nothing downstream should meet a shape it was not
 * written for.
 */
import { isHlc, type Hlc } from './hlc';
import { isDeviceId, isSeq, isVid, type Vid } from './ids';
import type { Provenance } from '../types';

/** A sealed blob by identity: its id, sealed length and BLAKE2b hash. Where it lies is each device's own index (§4). */
export interface BlobRef2 {
  id: string;
  len: number;
  h: string;
}

/** Observed tags of one directory path (its `mkdir`s and the puts and moves that implied it). */
export interface DirTags {
  p: string;
  vs: Vid[];
}

export type PutOp = {
  t: 'put';
  /** The file's id: the vid of the put that created it. */
  f: Vid;
  /** The path, only when this put creates the file (`f` is its own vid). */
  p?: string;
  /** Every version and unanswered delete of the file this put replaces (§2.4: a put answers the deletes it saw). */
  par: Vid[];
  b: BlobRef2;
  /** Plaintext size in bytes. */
  s: number;
  /** Content id: keyed BLAKE2b of the plaintext, hex. */
  k: string;
  w?: Provenance;
  /** A put that materialises a merge or a conflict of the heads in `par`. */
  m?: 'merge' | 'conflict';
  /** A conflict's losers, kept as versions: named by the put that records the conflict, or by a write that settled one not yet recorded. */
  lose?: Vid[];
};
export type MkdirOp = { t: 'mkdir'; p: string };
export type RmOp = { t: 'rm'; p: string; files: Array<{ f: Vid; heads: Vid[] }>; dirs: DirTags[]; w?: Provenance };
/** `files[].p` is each moved file's new path, `files[].par` the path-register values it replaces; `dirs` the old paths' observed tags. */
export type MvOp = { t: 'mv'; p: string; np: string; files: Array<{ f: Vid; par: Vid[]; p: string }>; dirs: DirTags[] };
export type ForgetOp = { t: 'forget'; vs: Vid[] };
export type PurgeOp = { t: 'purge'; files: Array<{ f: Vid; vs: Vid[] }> };
export type KputOp = { t: 'kput'; k: string; par: Vid[]; b: BlobRef2 };
export type KdelOp = { t: 'kdel'; k: string; par: Vid[] };
/** A small shared register: `depth` (history depth) or `device-name:<dev>`. */
export type RegOp = { t: 'reg'; r: string; par: Vid[]; v: string | number | boolean | null };
export type HdrOp = { t: 'hdr'; counter: number; kind: 'passphrase' | 'rotate' | 'upgrade'; epoch: string };
export type RetireOp = { t: 'retire'; dev: string };

/** The ops that take a seq and change what the vault holds. */
export type StateOp = PutOp | MkdirOp | RmOp | MvOp | ForgetOp | PurgeOp | KputOp | KdelOp | RegOp | HdrOp | RetireOp;

export type Op2 =
  | StateOp
  /** Several puts and mkdirs that count only together (an import): op i takes seq `s + i`. */
  | { t: 'batch'; ops: Array<PutOp | MkdirOp> }
  /** Confirms every earlier record of this device (§2.5); takes no seq. */
  | { t: 'ack' }
  /** A blob written ahead of the batch that uses it; takes no seq. */
  | { t: 'blob'; b: BlobRef2 }
  /** A blob now lives elsewhere in this device's own files (compaction); takes no seq. */
  | { t: 'reloc'; b: BlobRef2 };

/** The encrypted part of a v2 record. */
export interface RecordMeta {
  /** The op's seq (the first, for a batch); absent for ack, blob and reloc. */
  s?: number;
  h: Hlc;
  /** The writer's wall clock, for display only. */
  at: number;
  /** The writer's frontier changes since the previous record of this segment (the full vector in a segment's first record). */
  dep?: Record<string, number>;
  op: Op2;
}

/** How many seqs an op takes. */
export function seqsOf(op: Op2): number {
  if (op.t === 'batch') return op.ops.length;
  return op.t === 'ack' || op.t === 'blob' || op.t === 'reloc' ? 0 : 1;
}

const obj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): x is string => typeof x === 'string';
const nat = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const vids = (x: unknown): x is Vid[] => Array.isArray(x) && x.every(isVid);
const path = (x: unknown): x is string => str(x) && (x === '/memories' || x.startsWith('/memories/'));
const hex = (x: unknown, n: number): x is string => str(x) && x.length === n && /^[0-9a-f]+$/.test(x);
const opt = (x: unknown, check: (y: unknown) => boolean) => x === undefined || check(x);
const blobRef = (x: unknown): x is BlobRef2 => obj(x) && hex(x.id, 32) && nat(x.len) && hex(x.h, 64);
const prov = (x: unknown) => obj(x) && str(x.kind);
const dirTags = (x: unknown) => Array.isArray(x) && x.every((d) => obj(d) && path(d.p) && vids(d.vs));

function isPut(o: Record<string, unknown>): boolean {
  return isVid(o.f) && opt(o.p, path) && vids(o.par) && blobRef(o.b) && nat(o.s) && str(o.k) && opt(o.w, prov) && opt(o.m, (m) => m === 'merge' || m === 'conflict') && opt(o.lose, vids);
}

/** True if `x` is an op of a shape this build knows. */
export function isOp2(x: unknown): x is Op2 {
  if (!obj(x)) return false;
  switch (x.t) {
    case 'put':
      return isPut(x);
    case 'mkdir':
      return path(x.p);
    case 'rm':
      return path(x.p) && Array.isArray(x.files) && x.files.every((f) => obj(f) && isVid(f.f) && vids(f.heads)) && dirTags(x.dirs) && opt(x.w, prov);
    case 'mv':
      return path(x.p) && path(x.np) && Array.isArray(x.files) && x.files.every((f) => obj(f) && isVid(f.f) && vids(f.par) && path(f.p)) && dirTags(x.dirs);
    case 'forget':
      return vids(x.vs);
    case 'purge':
      return Array.isArray(x.files) && x.files.every((f) => obj(f) && isVid(f.f) && vids(f.vs));
    case 'kput':
      return str(x.k) && vids(x.par) && blobRef(x.b);
    case 'kdel':
      return str(x.k) && vids(x.par);
    case 'reg':
      return str(x.r) && vids(x.par) && (x.v === null || ['string', 'number', 'boolean'].includes(typeof x.v));
    case 'hdr':
      return nat(x.counter) && ['passphrase', 'rotate', 'upgrade'].includes(x.kind as string) && hex(x.epoch, 32);
    case 'retire':
      return isDeviceId(x.dev);
    case 'batch':
      return Array.isArray(x.ops) && x.ops.length > 0 && x.ops.every((o) => obj(o) && ((o.t === 'put' && isPut(o)) || (o.t === 'mkdir' && path(o.p))));
    case 'ack':
      return true;
    case 'blob':
    case 'reloc':
      return blobRef(x.b);
    default:
      return false;
  }
}

/** True if `x` is a record meta of a shape this build knows, its seq present exactly when its op takes one. */
export function isRecordMeta(x: unknown): x is RecordMeta {
  if (!obj(x) || !isHlc(x.h) || !nat(x.at) || !isOp2(x.op)) return false;
  if (!opt(x.dep, (d) => obj(d) && Object.entries(d).every(([k, v]) => (isDeviceId(k) || k === 'L') && nat(v)))) return false;
  return seqsOf(x.op) === 0 ? x.s === undefined : isSeq(x.s) && isSeq((x.s as number) + seqsOf(x.op) - 1);
}
