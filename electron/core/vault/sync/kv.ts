/**
 * The internal key-value store and the small registers as multi-value
 * registers (docs/sync-design.md §3): a `kput` lists the values it replaces,
 * a `kdel` the values it saw (so a concurrent `kput` survives it: add-wins).
 * A key whose heads are several reads as its merge rule (merge-rules.ts)
 * over their values and their newest common ancestor.
 */
import { isRetired, type KvState, type RegScalar, type SyncState } from './crdt';
import { compareStamped, type Hlc } from './hlc';
import { deviceOf, L_DEVICE, parseVid, type Vid } from './ids';
import { ruleFor, type MergeNotice } from './merge-rules';
import type { BlobRef2 } from './op';

/** The plaintext of an internal value. Synchronous: the caller loads what it needs first. */
export type KvReader = (b: BlobRef2, vid: Vid) => Uint8Array;

export type KvValue =
  /** One head: read its blob. */
  | { kind: 'single'; vid: Vid; b: BlobRef2 }
  /** Several heads merged by the key's rule: a JSON value not stored until a device writes it back. */
  | { kind: 'merged'; heads: Vid[]; value: unknown; notices: MergeNotice[] };

interface Head {
  vid: Vid;
  h: Hlc;
  b: BlobRef2;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

export class KvView {
  constructor(private readonly s: SyncState) {}

  /** Values of `key` no other value or delete of it names, sorted by vid. */
  private headsOf(k: KvState): Head[] {
    const named = new Set<Vid>();
    for (const v of k.vals.values()) for (const p of v.par) named.add(p);
    for (const d of k.dels.values()) for (const p of d.par) named.add(p);
    const out: Head[] = [];
    for (const [vid, v] of k.vals) if (!named.has(vid)) out.push({ vid, h: v.h, b: v.b });
    return out.sort((a, b) => (a.vid < b.vid ? -1 : a.vid > b.vid ? 1 : 0));
  }

  /** The heads of `key` (what a new `kput` or `kdel` of it replaces), sorted. */
  heads(key: string): Vid[] {
    const k = this.s.kv.get(key);
    return k ? this.headsOf(k).map((h) => h.vid) : [];
  }

  /** Keys that start with `prefix` and have a value, sorted. */
  keys(prefix: string): string[] {
    const out: string[] = [];
    for (const [key, k] of this.s.kv) if (key.startsWith(prefix) && this.headsOf(k).length) out.push(key);
    return out.sort();
  }

  /**
   * What `key` reads as, or undefined when it has no value. With several
   * heads, `read` gives their bytes (and the base's) for the key's rule; a
   * value that is not JSON counts as absent to a JSON rule, and the default
   * rule (newest wins) needs no reading at all.
   */
  get(key: string, read?: KvReader): KvValue | undefined {
    const k = this.s.kv.get(key);
    if (!k) return undefined;
    const heads = this.headsOf(k);
    if (!heads.length) return undefined;
    if (heads.length === 1) return { kind: 'single', vid: heads[0]!.vid, b: heads[0]!.b };
    if (!read) throw new Error('KvView.get: a reader is needed to merge concurrent values');
    const base = this.base(k, heads);
    const value = (vid: Vid, b: BlobRef2) => parseJson(read(b, vid));
    const rule = ruleFor(key);
    const merged = rule(
      key,
      base ? value(base, k.vals.get(base)!.b) : undefined,
      heads.map((x) => ({ vid: x.vid, h: x.h, value: value(x.vid, x.b) })),
    );
    return { kind: 'merged', heads: heads.map((x) => x.vid), value: merged.value, notices: merged.notices };
  }

  /**
   * The values a merge of `key` reads: its heads and, when there are several, their base (absent when forgotten).
   * Undefined when the key has no value.
   */
  mergeInputs(key: string): { heads: Array<{ vid: Vid; b: BlobRef2 }>; base?: { vid: Vid; b: BlobRef2 } } | undefined {
    const k = this.s.kv.get(key);
    const heads = k ? this.headsOf(k) : [];
    if (!k || !heads.length) return undefined;
    const base = heads.length > 1 ? this.base(k, heads) : undefined;
    return { heads: heads.map(({ vid, b }) => ({ vid, b })), ...(base ? { base: { vid: base, b: k.vals.get(base)!.b } } : {}) };
  }

  /**
   * Values no merge can need any more, not yet forgotten: of every key with at most one head (its value, or none
   * after a delete), the values it replaced, once every device this one knows of (`me`, the pseudo-device of a
   * single-writer vault and forgotten ones aside) has seen what replaced them; of a forgotten one, only the values it
   * last saw wait (`lastSeen`). Before that, a device that has not may
   * still write over one of them, and the merge then reads it as its base (a value forgotten sooner turned an offline
   * computer's change of one field into a conflict it lost). A key with several heads keeps all of its values until a
   * write settles it.
   */
  superseded(me?: string): Vid[] {
    const others = [...this.s.devices.keys()].filter((d) => d !== me && d !== L_DEVICE);
    const devices = others.filter((d) => !isRetired(this.s, d));
    const retired = others.filter((d) => isRetired(this.s, d));
    const seenBy = (d: string, vid: Vid) => {
      const at = parseVid(vid);
      return !at || at.seq === undefined || d === at.dev || (this.s.seen.get(d)?.get(at.dev) ?? 0) >= at.seq;
    };
    const seenByAll = (vid: Vid) => devices.every((d) => seenBy(d, vid));
    const out: Vid[] = [];
    for (const k of this.s.kv.values()) {
      const heads = this.headsOf(k);
      if (heads.length > 1) continue;
      // What replaced the rest: the one head, or (a deleted key) its deletes.
      if (!(heads.length ? [heads[0]!.vid] : [...k.dels.keys()]).every(seenByAll)) continue;
      const kept = this.lastSeen(k, retired, seenBy);
      // A single-writer vault's values (L) stay: their bytes are in its files, which no device compacts.
      for (const vid of k.vals.keys()) if (vid !== heads[0]?.vid && !kept.has(vid) && !this.s.forgotten.has(vid) && deviceOf(vid) !== L_DEVICE) out.push(vid);
    }
    return out;
  }

  /**
   * Of key `k`, the values each forgotten computer last saw (its heads, as far as it had seen): what it would write over
   * if it comes back, kept so its change still merges against them. At most its heads per key, so a forgotten computer
   * holds back only those, not every value replaced since it was last seen (what forgetting it is for).
   */
  private lastSeen(k: KvState, retired: string[], seenBy: (d: string, vid: Vid) => boolean): Set<Vid> {
    const kept = new Set<Vid>();
    for (const d of retired) {
      const replaced = new Set<Vid>();
      for (const [vid, x] of [...k.vals, ...k.dels]) if (seenBy(d, vid)) for (const p of x.par) replaced.add(p);
      for (const vid of k.vals.keys()) if (seenBy(d, vid) && !replaced.has(vid)) kept.add(vid);
    }
    return kept;
  }

  /** Keys with several heads: what `verify` and the notices list. */
  siblings(): string[] {
    const out: string[] = [];
    for (const [key, k] of this.s.kv) if (this.headsOf(k).length > 1) out.push(key);
    return out.sort();
  }

  /** The newest value every head descends from, unless a device forgot it (its bytes may be gone). */
  private base(k: KvState, heads: Head[]): Vid | undefined {
    const ancestors = (start: Vid) => {
      const seen = new Set<Vid>();
      const todo = [start];
      while (todo.length) {
        const v = todo.pop()!;
        const val = k.vals.get(v);
        if (seen.has(v) || !val) continue;
        seen.add(v);
        todo.push(...val.par);
      }
      return seen;
    };
    let common: Set<Vid> | undefined;
    for (const h of heads) {
      const a = ancestors(h.vid);
      common = common ? new Set([...common].filter((v) => a.has(v))) : a;
    }
    let best: Vid | undefined;
    for (const v of common ?? []) if (!best || compareStamped({ h: k.vals.get(v)!.h, vid: v }, { h: k.vals.get(best)!.h, vid: best }) > 0) best = v;
    // A forgotten base is no base, on every computer alike (never an older ancestor: docs/sync-design.md §12.2).
    return best && !this.s.forgotten.has(best) ? best : undefined;
  }

  /** The heads of register `name`, sorted. */
  registerHeads(name: string): Vid[] {
    const vals = this.s.regs.get(name);
    if (!vals) return [];
    const named = new Set<Vid>();
    for (const v of vals.values()) for (const p of v.par) named.add(p);
    return [...vals.keys()].filter((v) => !named.has(v)).sort();
  }

  /** A register's value: of concurrent heads, the largest number (`max`, for `depth`) or the newest (`newest`, for names). */
  register(name: string, mode: 'max' | 'newest'): RegScalar | undefined {
    const vals = this.s.regs.get(name);
    const heads = this.registerHeads(name).map((vid) => ({ vid, ...vals!.get(vid)! }));
    if (!heads.length) return undefined;
    heads.sort((a, b) => compareStamped(b, a));
    if (mode === 'max') {
      const nums = heads.filter((x) => typeof x.v === 'number');
      if (nums.length) return Math.max(...nums.map((x) => x.v as number));
    }
    return heads[0]!.v;
  }
}
