/**
 * The decrypted manifest held in memory while the vault is unlocked: every
 * memory file, directory, history entry and internal value, with a directory
 * index so listing and mutating cost the size of what they touch, never the
 * size of the vault. Journal records are `Op`s; `apply` is the one place that
 * interprets them, both live and when replaying the journal at unlock.
 */
import type { DirMeta, EntryMeta, FileMeta, HistoryEntry, Provenance, TrashEntry, VersionEntry } from './types';

export const ROOT = '/memories';

/** Where a sealed blob lives: a segment file, an offset in it, its length and BLAKE2b hash. */
export interface BlobRef {
  id: string;
  seg: string;
  off: number;
  len: number;
  h: string;
}
export interface FileRec {
  b: BlobRef;
  s: number;
  c: number;
  m: number;
  v: number;
  /** Who wrote this version (absent in records from before provenance was kept). */
  w?: Provenance;
}
export interface HistRec {
  v: number;
  b: BlobRef;
  s: number;
  m: number;
  w?: Provenance;
}
/** When and by whom a path's last file was deleted; its versions stay in `hist` (the trash). */
export interface TrashRec {
  at: number;
  w?: Provenance;
}
export interface DirRec {
  c: number;
  m: number;
}

/** A manifest change. Blob refs in ops carry no seg/off: those come from where the record sits. */
export type Op =
  | { t: 'write'; p: string; b: BlobRef; s: number; v: number; at: number; w?: Provenance }
  | { t: 'mkdir'; p: string; at: number }
  | { t: 'rm'; p: string; at: number; w?: Provenance }
  /** Forgets the kept versions of deleted memories (emptying the trash); a path that holds a file again is left alone. */
  | { t: 'purge'; ps: string[] }
  | { t: 'mv'; p: string; np: string; at: number }
  | { t: 'iput'; k: string; b: BlobRef }
  | { t: 'idel'; k: string }
  | { t: 'depth'; n: number }
  /** The blob with this id now lives at this place (compaction); takes no generation. */
  | { t: 'reloc'; b: BlobRef }
  /** A blob written ahead of the `batch` that uses it; changes nothing by itself and takes no generation. */
  | { t: 'blob'; b: BlobRef }
  /** Several changes that count only together (an import): one record, so a crash keeps all or none. Refs carry their place. */
  | { t: 'batch'; ops: Op[] };

export interface Snapshot {
  gen: number;
  depth: number;
  journal: string;
  segs: string[];
  files: Record<string, FileRec>;
  dirs: Record<string, DirRec>;
  hist: Record<string, HistRec[]>;
  internal: Record<string, BlobRef>;
  /** Absent in manifests written before the trash recorded deletions. */
  trash?: Record<string, TrashRec>;
}

export const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/'));
const isBelow = (p: string, dir: string): boolean => p.startsWith(dir + '/');

export class State {
  gen = 0;
  depth = 20;
  readonly files = new Map<string, FileRec>();
  readonly dirs = new Map<string, DirRec>();
  readonly hist = new Map<string, HistRec[]>();
  readonly internal = new Map<string, BlobRef>();
  readonly trash = new Map<string, TrashRec>();
  private readonly children = new Map<string, Set<string>>();
  private total = 0;
  /** Counts every op but relocations, so the blob index below knows when it is stale. */
  private changes = 0;
  /**
   * Which records hold each blob, built at the first relocation after a change.
   * A compaction relocates its blobs one after another (and replay does so
   * again after a crash); with the index each costs its holders, not a walk of
   * the whole manifest, which made emptying a large vault's trash quadratic.
   */
  private holders: { at: number; of: Map<string, Array<{ b: BlobRef } | string>> } | undefined;

  static empty(depth: number, at: number): State {
    const s = new State();
    s.depth = depth;
    s.dirs.set(ROOT, { c: at, m: at });
    s.children.set(ROOT, new Set());
    return s;
  }

  static fromSnapshot(snap: Snapshot): State {
    const s = new State();
    s.gen = snap.gen;
    s.depth = snap.depth;
    for (const [p, d] of Object.entries(snap.dirs)) s.dirs.set(p, d);
    for (const p of s.dirs.keys()) s.children.set(p, new Set());
    for (const p of s.dirs.keys()) if (p !== ROOT) s.children.get(parentOf(p))?.add(p);
    for (const [p, f] of Object.entries(snap.files)) {
      s.files.set(p, f);
      s.children.get(parentOf(p))?.add(p);
      s.total += f.s;
    }
    for (const [p, h] of Object.entries(snap.hist)) s.hist.set(p, h);
    for (const [k, b] of Object.entries(snap.internal)) s.internal.set(k, b);
    for (const [p, t] of Object.entries(snap.trash ?? {})) s.trash.set(p, t);
    return s;
  }

  toSnapshot(journal: string, segs: string[]): Snapshot {
    return {
      gen: this.gen,
      depth: this.depth,
      journal,
      segs,
      files: Object.fromEntries(this.files),
      dirs: Object.fromEntries(this.dirs),
      hist: Object.fromEntries(this.hist),
      internal: Object.fromEntries(this.internal),
      trash: Object.fromEntries(this.trash),
    };
  }

  totalSize(): number {
    return this.total;
  }

  stat(p: string): EntryMeta | undefined {
    const f = this.files.get(p);
    if (f) return fileMeta(p, f);
    const d = this.dirs.get(p);
    return d ? dirMeta(p, d) : undefined;
  }

  /** Entries strictly below `dir`, `depth` levels down, sorted by path. */
  list(dir: string, depth: number): EntryMeta[] {
    const out: EntryMeta[] = [];
    const walk = (d: string, level: number) => {
      for (const child of this.children.get(d) ?? []) {
        const meta = this.stat(child);
        if (!meta) continue;
        out.push(meta);
        if (meta.kind === 'dir' && level < depth) walk(child, level + 1);
      }
    };
    walk(dir, 1);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Every path below `dir` (files and directories), deepest first. */
  subtree(dir: string): string[] {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const child of this.children.get(d) ?? []) {
        if (this.dirs.has(child)) walk(child);
        out.push(child);
      }
    };
    walk(dir);
    return out;
  }

  history(p: string): HistoryEntry[] {
    return (this.hist.get(p) ?? []).map((h) => ({ version: h.v, size: h.s, modified: h.m }));
  }

  /** Every kept version of `p`, oldest first, then its current one (if it exists), with who wrote each. */
  versions(p: string): VersionEntry[] {
    const out: VersionEntry[] = (this.hist.get(p) ?? []).map((h) => ({ version: h.v, size: h.s, modified: h.m, current: false, ...(h.w ? { by: h.w } : {}) }));
    const f = this.files.get(p);
    if (f) out.push({ version: f.v, size: f.s, modified: f.m, current: true, ...(f.w ? { by: f.w } : {}) });
    return out;
  }

  /** Who wrote the current version of file `p`, if recorded. */
  writer(p: string): Provenance | undefined {
    return this.files.get(p)?.w;
  }

  /** Deleted memories with kept versions (paths with history but no file now), sorted by path. */
  trashed(): TrashEntry[] {
    const out: TrashEntry[] = [];
    for (const p of this.hist.keys()) {
      if (this.files.has(p) || !this.hist.get(p)?.length) continue;
      const t = this.trash.get(p);
      out.push({ path: p, versions: this.versions(p), ...(t ? { deleted: t.at, ...(t.w ? { by: t.w } : {}) } : {}) });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The version number the next write of `p` gets: never reuses one still in its history. */
  nextVersion(p: string): number {
    const h = this.hist.get(p);
    return Math.max(this.files.get(p)?.v ?? 0, h?.[h.length - 1]?.v ?? 0) + 1;
  }

  apply(op: Op): void {
    if (op.t === 'reloc') {
      this.relocate(op.b);
      return;
    }
    if (op.t === 'blob') return;
    if (op.t === 'batch') {
      for (const o of op.ops) this.apply(o);
      return;
    }
    this.gen += 1;
    this.changes += 1;
    switch (op.t) {
      case 'write': {
        this.ensureDirs(parentOf(op.p), op.at);
        const prev = this.files.get(op.p);
        if (prev) {
          this.pushHistory(op.p, prev);
          this.total -= prev.s;
        } else {
          this.children.get(parentOf(op.p))?.add(op.p);
          this.touch(parentOf(op.p), op.at);
        }
        this.files.set(op.p, { b: op.b, s: op.s, c: prev?.c ?? op.at, m: op.at, v: op.v, ...(op.w ? { w: op.w } : {}) });
        this.trash.delete(op.p);
        this.total += op.s;
        return;
      }
      case 'mkdir':
        this.ensureDirs(op.p, op.at);
        return;
      case 'rm':
        for (const p of [...this.subtree(op.p), op.p]) {
          if (this.files.has(p)) this.trash.set(p, { at: op.at, ...(op.w ? { w: op.w } : {}) });
          this.removeOne(p);
        }
        this.touch(parentOf(op.p), op.at);
        return;
      case 'mv':
        this.move(op.p, op.np, op.at);
        return;
      case 'iput':
        this.internal.set(op.k, op.b);
        return;
      case 'idel':
        this.internal.delete(op.k);
        return;
      case 'purge':
        for (const p of op.ps) {
          if (this.files.has(p)) continue;
          this.hist.delete(p);
          this.trash.delete(p);
        }
        return;
      case 'depth':
        this.depth = op.n;
        for (const [p, h] of this.hist) if (h.length > op.n) this.hist.set(p, h.slice(h.length - op.n));
        for (const p of this.trash.keys()) if (!this.hist.get(p)?.length) this.trash.delete(p);
        return;
    }
  }

  /** Every blob still referenced by a file, a history entry or an internal value. */
  *liveBlobs(): Iterable<BlobRef> {
    for (const f of this.files.values()) yield f.b;
    for (const h of this.hist.values()) for (const e of h) yield e.b;
    yield* this.internal.values();
  }

  private relocate(b: BlobRef): void {
    if (this.holders?.at !== this.changes) this.holders = { at: this.changes, of: this.blobHolders() };
    // A relocation keeps the blob's id, so the index stays right for the next one.
    for (const holder of this.holders.of.get(b.id) ?? []) {
      if (typeof holder === 'string') this.internal.set(holder, b);
      else holder.b = b;
    }
  }

  /** Blob id → the file and history records (or internal keys) that hold it. */
  private blobHolders(): Map<string, Array<{ b: BlobRef } | string>> {
    const of = new Map<string, Array<{ b: BlobRef } | string>>();
    const add = (id: string, holder: { b: BlobRef } | string) => {
      const list = of.get(id);
      if (list) list.push(holder);
      else of.set(id, [holder]);
    };
    for (const f of this.files.values()) add(f.b.id, f);
    for (const h of this.hist.values()) for (const e of h) add(e.b.id, e);
    for (const [k, ref] of this.internal) add(ref.id, k);
    return of;
  }

  private pushHistory(p: string, rec: FileRec): void {
    if (this.depth <= 0) return;
    const h = this.hist.get(p) ?? [];
    h.push({ v: rec.v, b: rec.b, s: rec.s, m: rec.m, ...(rec.w ? { w: rec.w } : {}) });
    if (h.length > this.depth) h.splice(0, h.length - this.depth);
    this.hist.set(p, h);
  }

  private removeOne(p: string): void {
    const f = this.files.get(p);
    if (f) {
      this.pushHistory(p, f);
      this.total -= f.s;
      this.files.delete(p);
    } else if (p !== ROOT) {
      this.dirs.delete(p);
      this.children.delete(p);
    }
    this.children.get(parentOf(p))?.delete(p);
  }

  private move(from: string, to: string, at: number): void {
    this.ensureDirs(parentOf(to), at);
    const moved = [from, ...this.subtree(from).reverse()];
    for (const p of moved) {
      const np = to + p.slice(from.length);
      const f = this.files.get(p);
      if (f) {
        this.files.delete(p);
        this.files.set(np, { ...f, m: p === from ? at : f.m });
        this.trash.delete(np);
        const h = this.hist.get(p);
        this.hist.delete(p);
        if (h) this.hist.set(np, h);
        else this.hist.delete(np);
      } else {
        const d = this.dirs.get(p);
        if (!d) continue;
        this.dirs.delete(p);
        this.dirs.set(np, d);
        this.children.set(np, new Set([...(this.children.get(p) ?? [])].map((c) => to + c.slice(from.length))));
        this.children.delete(p);
      }
    }
    this.children.get(parentOf(from))?.delete(from);
    this.children.get(parentOf(to))?.add(to);
    this.touch(parentOf(from), at);
    this.touch(parentOf(to), at);
  }

  private ensureDirs(dir: string, at: number): void {
    if (this.dirs.has(dir)) return;
    if (dir !== ROOT && !isBelow(dir, ROOT)) return;
    this.ensureDirs(parentOf(dir), at);
    this.dirs.set(dir, { c: at, m: at });
    this.children.set(dir, new Set());
    this.children.get(parentOf(dir))?.add(dir);
    this.touch(parentOf(dir), at);
  }

  private touch(dir: string, at: number): void {
    const d = this.dirs.get(dir);
    if (d) d.m = at;
  }
}

function fileMeta(path: string, f: FileRec): FileMeta {
  return { kind: 'file', path, size: f.s, created: f.c, modified: f.m, version: f.v };
}
function dirMeta(path: string, d: DirRec): DirMeta {
  return { kind: 'dir', path, created: d.c, modified: d.m };
}
