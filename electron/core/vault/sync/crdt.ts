/**
 * The replicated state of format v2 (docs/sync-design.md §2.4): a
 * join-semilattice. Every op is turned into a one-op state and joined in; a
 * checkpoint is a state; opening the vault joins checkpoints and journal
 * tails. `join` only takes unions of facts (and the maximum of counters), so
 * it is commutative, associative and idempotent, and the state depends only
 * on the *set* of ops seen, never on the order they arrived in. What the user
 * sees (current text, history, trash, conflicts) is derived from it by the
 * view (view.ts) and never stored.
 *
 * Values in the maps are immutable records: joins share them, nobody edits
 * them in place.
 */
import { canonicalJson } from './canonical';
import { compareHlc, maxHlc, minHlc, type Hlc } from './hlc';
import { formatVid, parseVid, type Vid } from './ids';
import type { BlobRef2, Op2, StateOp } from './op';
import type { Provenance } from '../types';

export type Fid = Vid;
export const ROOT = '/memories';

export interface VersionRec {
  par: Vid[];
  b: BlobRef2;
  s: number;
  /** Content id (keyed hash of the text); '' when unknown (versions read from v1), which never equals another. */
  k: string;
  h: Hlc;
  at: number;
  w?: Provenance;
  m?: 'merge' | 'conflict';
  lose?: Vid[];
  /** The version number v1 gave it (versions read from v1 only): ordinals never go below it. */
  v1?: number;
  /** When the file was created, if before this version (the oldest version read from v1 only). */
  c?: number;
}
/** One value of a file's path register. `sub`: moved along with its folder (the file's own modified time stays). */
export interface PathRec {
  p: string;
  par: Vid[];
  h: Hlc;
  at: number;
  sub?: true;
}
/** A delete: the heads it removed. `at` is absent for deletions v1 did not record. */
export interface RmRec {
  heads: Vid[];
  h: Hlc;
  at?: number;
  w?: Provenance;
}
export interface FileState {
  versions: Map<Vid, VersionRec>;
  path: Map<Vid, PathRec>;
  rms: Map<Vid, RmRec>;
}
/** One tag of a directory's observed-remove set: when it was made (`c`) and last touched (`m`, v1's only). */
export interface DirAdd {
  c: number;
  m: number;
}
export interface DirState {
  adds: Map<Vid, DirAdd>;
  removed: Set<Vid>;
}
export interface KvVal {
  par: Vid[];
  b: BlobRef2;
  h: Hlc;
}
export interface KvDel {
  par: Vid[];
  h: Hlc;
}
export interface KvState {
  vals: Map<Vid, KvVal>;
  dels: Map<Vid, KvDel>;
}
export type RegScalar = string | number | boolean | null;
export interface RegVal {
  par: Vid[];
  v: RegScalar;
  h: Hlc;
}
export interface DeviceInfo {
  firstH: Hlc;
  lastH: Hlc;
  lastAt: number;
}
export interface HdrRec {
  counter: number;
  kind: 'passphrase' | 'rotate' | 'upgrade';
  epoch: string;
  h: Hlc;
  at: number;
}

export interface SyncState {
  files: Map<Fid, FileState>;
  dirs: Map<string, DirState>;
  kv: Map<string, KvState>;
  regs: Map<string, Map<Vid, RegVal>>;
  forgotten: Set<Vid>;
  purged: Map<Fid, Set<Vid>>;
  /** Per device, the highest seq included. */
  frontier: Map<string, number>;
  devices: Map<string, DeviceInfo>;
  /**
   * Devices a user forgot ("Forget this computer"), each with the vids of the retire ops naming it. A device counts as
   * retired only while it has not seen one of them (`isRetired`): a computer that writes again after seeing it is back.
   */
  retired: Map<string, Set<Vid>>;
  /** Header changes, for the notices of §7. */
  hdrs: Map<Vid, HdrRec>;
  /**
   * Per device, the highest seq of each other device it had applied, as far as this device knows (its records' `dep`,
   * its checkpoints' frontier): a value replaced everywhere is forgotten only once every device has seen what replaced
   * it (kv.ts `superseded`). Only when a device writes a forget depends on it, never what any device shows.
   */
  seen: Map<string, Map<string, number>>;
}

export function emptyState(): SyncState {
  return { files: new Map(), dirs: new Map(), kv: new Map(), regs: new Map(), forgotten: new Set(), purged: new Map(), frontier: new Map(), devices: new Map(), retired: new Map(), hdrs: new Map(), seen: new Map() };
}

const sorted = (vs: readonly Vid[]): Vid[] => [...new Set(vs)].sort();

/** A value both sides hold under one key: the same fact, unless a device forked; then the smaller encoding, on every device alike. */
function pick<T>(a: T, b: T): T {
  if (a === b) return a;
  const ca = canonicalJson(a);
  const cb = canonicalJson(b);
  return ca <= cb ? a : b;
}

function unionMap<K, V>(into: Map<K, V>, from: Map<K, V>): void {
  for (const [k, v] of from) {
    const have = into.get(k);
    into.set(k, have === undefined ? v : pick(have, v));
  }
}
function unionSet<T>(into: Set<T>, from: Set<T>): void {
  for (const v of from) into.add(v);
}
/** `into.get(k)`, created by `make` when absent. */
function slot<K, V>(into: Map<K, V>, k: K, make: () => V): V {
  let v = into.get(k);
  if (v === undefined) into.set(k, (v = make()));
  return v;
}

const emptyFile = (): FileState => ({ versions: new Map(), path: new Map(), rms: new Map() });
const emptyDir = (): DirState => ({ adds: new Map(), removed: new Set() });
const emptyKv = (): KvState => ({ vals: new Map(), dels: new Map() });

/** Joins `from` into `into` (mutating `into` only) and returns it. */
export function joinInto(into: SyncState, from: SyncState): SyncState {
  for (const [fid, f] of from.files) {
    const t = slot(into.files, fid, emptyFile);
    unionMap(t.versions, f.versions);
    unionMap(t.path, f.path);
    unionMap(t.rms, f.rms);
  }
  for (const [p, d] of from.dirs) {
    const t = slot(into.dirs, p, emptyDir);
    unionMap(t.adds, d.adds);
    unionSet(t.removed, d.removed);
  }
  for (const [k, v] of from.kv) {
    const t = slot(into.kv, k, emptyKv);
    unionMap(t.vals, v.vals);
    unionMap(t.dels, v.dels);
  }
  for (const [r, vals] of from.regs) unionMap(slot(into.regs, r, () => new Map()), vals);
  unionSet(into.forgotten, from.forgotten);
  for (const [fid, vs] of from.purged) unionSet(slot(into.purged, fid, () => new Set()), vs);
  for (const [dev, n] of from.frontier) into.frontier.set(dev, Math.max(into.frontier.get(dev) ?? 0, n));
  for (const [dev, d] of from.devices) {
    const have = into.devices.get(dev);
    into.devices.set(dev, have ? { firstH: minHlc(have.firstH, d.firstH), lastH: maxHlc(have.lastH, d.lastH), lastAt: Math.max(have.lastAt, d.lastAt) } : d);
  }
  for (const [dev, vs] of from.retired) unionSet(slot(into.retired, dev, () => new Set()), vs);
  unionMap(into.hdrs, from.hdrs);
  for (const [dev, seen] of from.seen) noteSeen(into, dev, seen);
  return into;
}

/** Notes that device `dev` had applied `frontier` of the other devices (each count only ever rises). */
export function noteSeen(s: SyncState, dev: string, frontier: ReadonlyMap<string, number> | Readonly<Record<string, number>>): void {
  for (const [d, n] of frontier instanceof Map ? frontier : Object.entries(frontier)) {
    if (d === dev || n <= (s.seen.get(dev)?.get(d) ?? 0)) continue;
    slot(s.seen, dev, () => new Map<string, number>()).set(d, n);
  }
}

/**
 * True while `dev` is forgotten: some retire op names it that it had not seen when it last wrote (its records' `dep`,
 * its checkpoints' frontier). A forgotten computer that opens the vault again and writes is known again, so the others
 * wait for it again before they forget what it may still change (kv.ts `superseded`).
 */
export function isRetired(s: SyncState, dev: string): boolean {
  const retires = s.retired.get(dev);
  if (!retires) return false;
  const seen = s.seen.get(dev);
  for (const vid of retires) {
    const at = parseVid(vid);
    // A vid that cannot be placed (a checkpoint of a buggy or newer build) and a retire its own subject wrote (no build
    // of ours writes one; `seen` never holds a device's own seq) are not answered by any write: read as no retire, the
    // safe side (waiting longer keeps bytes; forgetting early can lose a change).
    if (!at || at.seq === undefined || at.dev === dev) continue;
    if ((seen?.get(at.dev) ?? 0) < at.seq) return true;
  }
  return false;
}

/** A copy whose maps and sets may be changed without touching `s` (the immutable records are shared). */
export function cloneState(s: SyncState): SyncState {
  return joinInto(emptyState(), s);
}

/** The join of any number of states, as a new state. */
export function join(...states: SyncState[]): SyncState {
  const out = emptyState();
  for (const s of states) joinInto(out, s);
  return out;
}

/** The folders above `p` inside ROOT (ROOT itself excluded), nearest last. */
export function ancestorsOf(p: string): string[] {
  const out: string[] = [];
  for (let at = p.lastIndexOf('/'); at > ROOT.length; at = p.lastIndexOf('/', at - 1)) out.unshift(p.slice(0, at));
  return out;
}

/** The identity and stamp a record gives its op. */
export interface Stamp {
  dev: string;
  seq: number;
  h: Hlc;
  at: number;
}

function addOp(s: SyncState, vid: Vid, h: Hlc, at: number, op: StateOp): void {
  const tag = (p: string) => slot(s.dirs, p, emptyDir).adds.set(vid, { c: at, m: at });
  switch (op.t) {
    case 'put': {
      const f = slot(s.files, op.f, emptyFile);
      f.versions.set(vid, { par: sorted(op.par), b: op.b, s: op.s, k: op.k, h, at, ...(op.w ? { w: op.w } : {}), ...(op.m ? { m: op.m } : {}), ...(op.lose ? { lose: sorted(op.lose) } : {}) });
      if (op.p !== undefined) {
        f.path.set(vid, { p: op.p, par: [], h, at });
        for (const d of ancestorsOf(op.p)) tag(d);
      }
      return;
    }
    case 'mkdir':
      for (const d of [...ancestorsOf(op.p), op.p]) if (d !== ROOT) tag(d);
      return;
    case 'rm':
      for (const { f, heads } of op.files) slot(s.files, f, emptyFile).rms.set(vid, { heads: sorted(heads), h, at, ...(op.w ? { w: op.w } : {}) });
      for (const { p, vs } of op.dirs) unionSet(slot(s.dirs, p, emptyDir).removed, new Set(vs));
      return;
    case 'mv':
      for (const { f, par, p } of op.files) slot(s.files, f, emptyFile).path.set(vid, { p, par: sorted(par), h, at, ...(p !== op.np ? { sub: true as const } : {}) });
      for (const { p, vs } of op.dirs) {
        unionSet(slot(s.dirs, p, emptyDir).removed, new Set(vs));
        if (p === op.p || p.startsWith(op.p + '/')) tag(op.np + p.slice(op.p.length));
      }
      for (const d of ancestorsOf(op.np)) tag(d);
      return;
    case 'forget':
      unionSet(s.forgotten, new Set(op.vs));
      return;
    case 'purge':
      for (const { f, vs } of op.files) unionSet(slot(s.purged, f, () => new Set()), new Set(vs));
      return;
    case 'kput':
      slot(s.kv, op.k, emptyKv).vals.set(vid, { par: sorted(op.par), b: op.b, h });
      return;
    case 'kdel':
      slot(s.kv, op.k, emptyKv).dels.set(vid, { par: sorted(op.par), h });
      return;
    case 'reg':
      slot(s.regs, op.r, () => new Map()).set(vid, { par: sorted(op.par), v: op.v, h });
      return;
    case 'hdr':
      s.hdrs.set(vid, { counter: op.counter, kind: op.kind, epoch: op.epoch, h, at });
      return;
    case 'retire':
      slot(s.retired, op.dev, () => new Set()).add(vid);
      return;
  }
}

/**
 * The state holding exactly one op (a batch: all of its ops, op i at seq
 * `seq + i`). Ops that take no seq (ack, blob, reloc) change no state: the
 * empty state is returned.
 */
export function opState(stamp: Stamp, op: Op2, dep?: ReadonlyMap<string, number> | Readonly<Record<string, number>>): SyncState {
  const s = emptyState();
  if (op.t === 'ack' || op.t === 'blob' || op.t === 'reloc') return s;
  const ops: StateOp[] = op.t === 'batch' ? op.ops : [op];
  ops.forEach((o, i) => addOp(s, formatVid(stamp.dev, stamp.seq + i), stamp.h, stamp.at, o));
  s.frontier.set(stamp.dev, stamp.seq + ops.length - 1);
  s.devices.set(stamp.dev, { firstH: stamp.h, lastH: stamp.h, lastAt: stamp.at });
  // What its writer had applied of the others (the record's `dep`).
  if (dep) noteSeen(s, stamp.dev, dep);
  return s;
}

/** The largest stamp anywhere in `s`: where a device's clock starts when it opens the vault. */
export function maxStamp(s: SyncState): Hlc {
  let h: Hlc = [0, 0];
  for (const d of s.devices.values()) if (compareHlc(d.lastH, h) > 0) h = d.lastH;
  return h;
}
