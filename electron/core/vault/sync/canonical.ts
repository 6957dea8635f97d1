/**
 * Canonical encoding: one byte string per value, so two equal states (or
 * views) serialise identically on every device, whatever order their maps
 * were filled in. Maps become arrays of [key, value] sorted by key, sets
 * sorted arrays, object keys sorted, `undefined` fields dropped. Keys and set
 * members are strings or numbers (compared as plain JS strings/numbers).
 *
 * `encodeState`/`decodeState` carry a SyncState through a checkpoint (§4).
 */
import type { DeviceInfo, DirState, FileState, HdrRec, KvState, RegVal, SyncState } from './crdt';

type Key = string | number;
const byKey = (a: Key, b: Key) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/** A plain JSON value, maps and sets turned into sorted arrays, object keys sorted. */
export function canonicalValue(v: unknown): unknown {
  if (v instanceof Map) {
    return [...v.entries()].sort(([a], [b]) => byKey(a as Key, b as Key)).map(([k, x]) => [k, canonicalValue(x)]);
  }
  if (v instanceof Set) return [...v].sort((a, b) => byKey(a as Key, b as Key)).map(canonicalValue);
  if (Array.isArray(v)) return v.map(canonicalValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canonicalValue(x);
    }
    return out;
  }
  return v;
}

/** The canonical JSON text of a value (see canonicalValue). */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(canonicalValue(v));
}

/** The format of an encoded state: a checkpoint of another version is refused, never half-read. */
export const STATE_FORMAT = 1;

/** A state as canonical JSON text: equal states give equal text. */
export function encodeState(s: SyncState): string {
  return canonicalJson({ format: STATE_FORMAT, ...s });
}

type Entries<V> = Array<[string, V]>;
interface Encoded {
  format: number;
  files: Entries<{ versions: Entries<unknown>; path: Entries<unknown>; rms: Entries<unknown> }>;
  dirs: Entries<{ adds: Entries<unknown>; removed: string[] }>;
  kv: Entries<{ vals: Entries<unknown>; dels: Entries<unknown> }>;
  regs: Entries<Entries<unknown>>;
  forgotten: string[];
  purged: Entries<string[]>;
  frontier: Entries<number>;
  devices: Entries<unknown>;
  /** Per device, its retire ops (checkpoints from before they were kept so hold plain ids: none was ever written). */
  retired: Entries<string[]> | string[];
  hdrs: Entries<unknown>;
  /** Absent in checkpoints written before stage 4 kept it: nothing known (forgetting waits for newer records). */
  seen?: Entries<Entries<number>>;
}

const map = <V>(e: Entries<unknown>): Map<string, V> => new Map(e as Entries<V>);

/**
 * The state encoded by `encodeState`. Throws on text of another format or
 * shape: it comes from an authenticated checkpoint, so that means a newer
 * build wrote it (the caller opens read-only and says so) or a bug.
 */
export function decodeState(text: string): SyncState {
  const e = JSON.parse(text) as Encoded;
  if (e?.format !== STATE_FORMAT) throw new Error(`decodeState: format ${String(e?.format)} is not ${STATE_FORMAT}`);
  const files = new Map<string, FileState>(e.files.map(([fid, f]) => [fid, { versions: map(f.versions), path: map(f.path), rms: map(f.rms) }]));
  const dirs = new Map<string, DirState>(e.dirs.map(([p, d]) => [p, { adds: map(d.adds), removed: new Set(d.removed) }]));
  const kv = new Map<string, KvState>(e.kv.map(([k, v]) => [k, { vals: map(v.vals), dels: map(v.dels) }]));
  const regs = new Map<string, Map<string, RegVal>>(e.regs.map(([r, vals]) => [r, map<RegVal>(vals)]));
  return {
    files,
    dirs,
    kv,
    regs,
    forgotten: new Set(e.forgotten),
    purged: new Map(e.purged.map(([fid, vs]) => [fid, new Set(vs)])),
    frontier: new Map(e.frontier),
    devices: map<DeviceInfo>(e.devices),
    retired: new Map(e.retired.filter((x): x is [string, string[]] => Array.isArray(x)).map(([dev, vs]) => [dev, new Set(vs)])),
    hdrs: map<HdrRec>(e.hdrs),
    seen: new Map((e.seen ?? []).map(([dev, seen]) => [dev, new Map(seen)])),
  };
}
