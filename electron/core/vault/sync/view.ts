/**
 * The view of a SyncState: what the memory files, their history, the trash
 * and the conflicts read as, derived every time from the set of facts, so the
 * same state gives the same view on every device (docs/sync-design.md §2.4).
 * `list`, `stat`, `versions`, `history` and `trashed` answer as v1's State
 * does (state.ts), so the Vault can switch to it; version entries also carry
 * their vid and device. Internal keys and registers are in kv.ts.
 */
import type { DirMeta, EntryMeta, FileMeta, HistoryEntry, Provenance, TrashEntry, VersionEntry } from '../types';
import { ROOT, type Fid, type RmRec, type SyncState } from './crdt';
import { compareStamped } from './hlc';
import { byStamp, VersionGraph, type VersionAt } from './graph';
import { compareVid, deviceOf, type Vid } from './ids';
import { KvView } from './kv';
import { resolveHeads, type Resolution, type TextReader } from './resolve';
import { buildTree, parentOf, patchTree, tagged, type Group, type Tree } from './tree';

export const DEFAULT_DEPTH = 20;

/** A version as listed: v1's entry plus its identity. A merge not yet written has no vid. */
export interface SyncVersionEntry extends VersionEntry {
  vid?: Vid;
  device?: string;
}

/** A trash entry whose versions carry their identity. */
export interface SyncTrashEntry extends TrashEntry {
  versions: SyncVersionEntry[];
}

export type ConflictEntry =
  /** Concurrent overlapping edits: `winner` is current, `losers` kept as versions. `vid`: the put that recorded it, once one did. */
  | { kind: 'conflict'; what: 'edit'; path: string; fid: Fid; winner: Vid; losers: Vid[]; base?: Vid; vid?: Vid }
  /** A delete that met a concurrent edit: the file stays; the delete is listed for review. */
  | { kind: 'conflict'; what: 'delete'; path: string; fid: Fid; rm: Vid; device: string; at?: number; by?: Provenance };

const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export class SyncView {
  readonly graph: VersionGraph;
  readonly tree: Tree;
  readonly kv: KvView;
  private readonly resolutions = new Map<string, Resolution>();
  private readonly dirMetas = new Map<string, DirMeta>();

  /** Built from the view before by taking in one file's new version (`fid` below), not by walking every file. */
  readonly patched: boolean;

  /**
   * `read` gives a version's text; needed only where concurrent heads must be merged (see textsNeeded). `same`: a view
   * of this state before a change that touched no memory file (an internal value's put or delete): its version graph
   * and tree are still this state's, and are taken over instead of walking every file again. With `fid`: before a
   * new version of that file alone (an own write), its graph and tree are brought up to date in place when only that
   * file's entry changes (graph.ts `addVersions`, tree.ts `patchTree`), else built again.
   */
  constructor(
    readonly s: SyncState,
    readonly reader?: TextReader,
    same?: SyncView,
    fid?: Fid,
  ) {
    // The total size `same` knew, less what the file showed there (read before its entry changes in place).
    const before = same?.s === s && same.total !== undefined ? same.total - (fid === undefined ? 0 : same.sizeOfFid(fid)) : undefined;
    const kept = same?.s === s && (fid === undefined || (same.graph.addVersions(s, fid) && patchTree(same.tree, s, same.graph, fid)));
    this.patched = kept && fid !== undefined;
    this.graph = kept ? same!.graph : new VersionGraph(s);
    this.tree = kept ? same!.tree : buildTree(s, this.graph);
    if (kept && before !== undefined) this.total = before + (fid === undefined ? 0 : this.sizeOfFid(fid));
    // The tests check each one against the view built from scratch (vitest.config.ts, playwright.config.ts).
    if (this.patched && process.env.MNEMO_VIEW_CHECK === '1') checkPatched(this);
    this.kv = new KvView(s);
  }

  /** Versions of history kept per file: the `depth` register (concurrent values: the larger). */
  depth(): number {
    const v = this.kv.register('depth', 'max');
    return typeof v === 'number' && v >= 0 ? v : DEFAULT_DEPTH;
  }

  /** The heads of file id `fid` (versions nothing replaced, bytes kept), sorted; empty once absorbed or purged. */
  heads(fid: Fid): Vid[] {
    return this.tree.fids.get(fid)?.heads ?? [];
  }

  /** The heads of `fid` no delete removed: the file is alive iff there is one. */
  aliveHeads(fid: Fid): Vid[] {
    return this.tree.fids.get(fid)?.alive ?? [];
  }

  /** Where file id `fid` is by its path register (the newest concurrent rename), if it is known. */
  pathOf(fid: Fid): string | undefined {
    return this.tree.fids.get(fid)?.path;
  }

  /** The group shown at `p` (a file or a trash entry), if any. */
  group(p: string): Group | undefined {
    return this.tree.groups.get(p);
  }

  /** The file id a write to `p` continues: the file (or trash entry) shown there. */
  fidAt(p: string): Fid | undefined {
    return this.tree.groups.get(p)?.fid;
  }

  /** What a new version of `p` replaces: every head of every file id shown there, and the deletes not yet answered. */
  parFor(p: string): Vid[] {
    const g = this.tree.groups.get(p);
    if (!g) return [];
    const out = new Set<Vid>();
    for (const m of g.members) {
      for (const h of m.heads) out.add(h);
      for (const rm of this.s.files.get(m.fid)!.rms.keys()) if (!this.graph.named.has(rm)) out.add(rm);
    }
    return [...out].sort();
  }

  /** Every alive head of a live group, sorted. */
  private groupAlive(g: Group): Vid[] {
    return g.members.flatMap((m) => m.alive).sort();
  }

  /** How the file shown at `p` resolves (undefined if no live file is shown there). */
  resolve(p: string): Resolution | undefined {
    const g = this.tree.groups.get(p);
    if (!g?.live) return undefined;
    let r = this.resolutions.get(p);
    if (!r) this.resolutions.set(p, (r = resolveHeads(this.graph, this.groupAlive(g), this.reader)));
    return r;
  }

  /**
   * The versions whose text a view of this state must read to resolve every
   * file: the heads and base of each file with concurrent heads. A caller
   * loads them, then builds the view with a reader that answers from memory.
   */
  textsNeeded(): VersionAt[] {
    const out = new Map<Vid, VersionAt>();
    for (const g of this.tree.groups.values()) {
      if (!g.live) continue;
      const heads = this.groupAlive(g);
      if (heads.length < 2) continue;
      const base = this.graph.base(heads);
      for (const v of base ? [...heads, base] : heads) out.set(v, this.graph.all.get(v)!);
    }
    return [...out.values()];
  }

  /** The versions of a group, oldest first, with their ordinals (never below a v1 number, one more than the one before). */
  private ordered(g: Group): Array<VersionAt & { n: number }> {
    const vids = this.graph.closure(g.members.flatMap((m) => [...m.heads, ...this.s.files.get(m.fid)!.versions.keys()]));
    const all = [...vids].map((v) => this.graph.all.get(v)!).sort(byStamp);
    let n = 0;
    return all.map((at) => ({ ...at, n: (n = Math.max(n + 1, at.rec.v1 ?? 0)) }));
  }

  /** Every version of the group shown at `p`, oldest first, the current one last (a merge not yet written: without vid). */
  versions(p: string): SyncVersionEntry[] {
    const g = this.tree.groups.get(p);
    if (!g) return [];
    const r = g.live ? this.resolve(p) : undefined;
    const current = r?.kind === 'single' ? r.vid : r?.kind === 'conflict' ? r.winner : undefined;
    const alive = new Set(g.live ? this.groupAlive(g) : []);
    const ordered = this.ordered(g);
    const kept = ordered.filter((v) => !this.graph.gone.has(v.vid) && v.vid !== current);
    // The newest `depth` versions are shown, and every alive head whatever its age (a conflict's loser is never hidden).
    const depth = this.depth();
    const older = kept.filter((v) => !alive.has(v.vid));
    const inWindow = new Set(older.slice(Math.max(0, older.length - depth)).map((v) => v.vid));
    const entry = (v: VersionAt & { n: number }, isCurrent: boolean): SyncVersionEntry => ({
      version: v.n,
      size: v.rec.s,
      modified: v.rec.at,
      current: isCurrent,
      ...(v.rec.w ? { by: v.rec.w } : {}),
      vid: v.vid,
      device: deviceOf(v.vid),
    });
    const out = kept.filter((v) => alive.has(v.vid) || inWindow.has(v.vid)).map((v) => entry(v, false));
    const cur = ordered.find((v) => v.vid === current);
    if (cur) out.push(entry(cur, true));
    if (r?.kind === 'merge') {
      const heads = r.heads.map((v) => this.graph.all.get(v)!.rec.at);
      out.push({ version: (ordered.at(-1)?.n ?? 0) + 1, size: r.size, modified: Math.max(...heads), current: true });
    }
    return out;
  }

  /** The kept versions of `p` other than its current one, as v1's `history`. */
  history(p: string): HistoryEntry[] {
    return this.versions(p)
      .filter((v) => !v.current)
      .map((v) => ({ version: v.version, size: v.size, modified: v.modified }));
  }

  private fileMeta(p: string, g: Group): FileMeta {
    const versions = this.versions(p);
    const cur = versions.at(-1)!;
    let modified = cur.modified;
    for (const m of g.members) if (m.alive.length && !m.pathSub) modified = Math.max(modified, m.pathAt);
    const created = Math.min(...g.members.filter((m) => m.alive.length).map((m) => m.created));
    return { kind: 'file', path: p, size: cur.size, created, modified, version: cur.version };
  }

  private dirMeta(d: string): DirMeta {
    const known = this.dirMetas.get(d);
    if (known) return known;
    let c = Infinity;
    let m = -Infinity;
    const state = this.s.dirs.get(d);
    for (const [tag, add] of state?.adds ?? []) {
      if (state!.removed.has(tag)) continue;
      c = Math.min(c, add.c);
      m = Math.max(m, add.m);
    }
    // A directory is touched when an entry arrives in it; one held up only by entries below it dates from them.
    let first = Infinity;
    for (const ch of this.tree.children.get(d) ?? []) {
      const g = this.tree.groups.get(ch);
      const arrived = g ? Math.min(...g.members.filter((x) => x.alive.length).map((x) => x.pathAt)) : this.dirMeta(ch).created;
      m = Math.max(m, arrived);
      first = Math.min(first, arrived);
    }
    if (c === Infinity) c = first === Infinity ? 0 : first;
    const meta: DirMeta = { kind: 'dir', path: d, created: c, modified: Math.max(m, c) };
    this.dirMetas.set(d, meta);
    return meta;
  }

  stat(p: string): EntryMeta | undefined {
    const g = this.tree.groups.get(p);
    if (g?.live) return this.fileMeta(p, g);
    return this.tree.dirs.has(p) ? this.dirMeta(p) : undefined;
  }

  /** Entries strictly below `dir`, `depth` levels down, sorted by path (as State.list). */
  list(dir: string, depth: number): EntryMeta[] {
    const out: EntryMeta[] = [];
    const walk = (d: string, level: number) => {
      for (const child of this.tree.children.get(d) ?? []) {
        const meta = this.stat(child);
        if (!meta) continue;
        out.push(meta);
        if (meta.kind === 'dir' && level < depth) walk(child, level + 1);
      }
    };
    walk(dir, 1);
    return out.sort(byPath);
  }

  /** `stat(p)?.kind`, without a folder's times (`dirMeta` walks every tag and entry it has). */
  kind(p: string): EntryMeta['kind'] | undefined {
    return this.tree.groups.get(p)?.live ? 'file' : this.tree.dirs.has(p) ? 'dir' : undefined;
  }

  /** True if `p` is shown as a directory. */
  isDir(p: string): boolean {
    return this.tree.dirs.has(p);
  }

  /** Total plaintext bytes of every live file's current text. */
  totalSize(): number {
    if (this.total === undefined) {
      let n = 0;
      for (const [p, g] of this.tree.groups) if (g.live) n += this.currentSize(p);
      this.total = n;
    }
    return this.total;
  }

  /** `totalSize`, once asked (a view patched from one that knew it knows it at once: every write asks). */
  private total: number | undefined;

  /** The size of the text shown at `p` (0 if no live file is): `versions(p).at(-1).size`, without listing versions. */
  private currentSize(p: string): number {
    const r = this.resolve(p);
    if (!r) return 0;
    return r.kind === 'merge' ? r.size : this.graph.all.get(r.kind === 'single' ? r.vid : r.winner)!.rec.s;
  }

  /** The size shown for file id `fid` (0 when not shown as a live file). */
  private sizeOfFid(fid: Fid): number {
    const p = this.tree.fids.get(fid)?.path;
    return p !== undefined && this.tree.groups.get(p)?.live && this.tree.groups.get(p)!.fid === fid ? this.currentSize(p) : 0;
  }

  /** Deleted files whose versions are kept, sorted by path (as State.trashed). */
  trashed(): SyncTrashEntry[] {
    const out: SyncTrashEntry[] = [];
    for (const [p, g] of this.tree.groups) {
      if (g.live) continue;
      const versions = this.versions(p);
      if (!versions.length) continue;
      // Deleted when, and by whom: the newest delete of any of its file ids.
      let last: (RmRec & { vid: Vid }) | undefined;
      for (const m of g.members) for (const [vid, rm] of this.s.files.get(m.fid)!.rms) if (!last || compareStamped({ h: rm.h, vid }, last) > 0) last = { ...rm, vid };
      out.push({ path: p, versions, ...(last?.at !== undefined ? { deleted: last.at, ...(last.w ? { by: last.w } : {}) } : {}) });
    }
    return out.sort(byPath);
  }

  /** Conflicts to review: concurrent edits (resolved or recorded) and deletes that met an edit, sorted by path. */
  conflicts(): ConflictEntry[] {
    const out: ConflictEntry[] = [];
    for (const [p, g] of this.tree.groups) {
      if (!g.live) continue;
      const r = this.resolve(p)!;
      if (r.kind === 'conflict') out.push({ kind: 'conflict', what: 'edit', path: p, fid: g.fid, winner: r.winner, losers: r.losers, ...(r.base ? { base: r.base } : {}) });
      // Conflicts written down: several devices may record the same one at once; it is listed once, by its smallest vid.
      const recorded = new Map<string, ConflictEntry>();
      for (const v of this.versions(p)) {
        const rec = v.vid ? this.graph.all.get(v.vid)?.rec : undefined;
        if (!rec?.lose?.length || !v.vid) continue;
        const losers = rec.lose;
        // A recorded conflict copies its winner's sealed bytes; a write that settled one is itself what won.
        const winner = rec.m === 'conflict' ? (rec.par.find((x) => this.graph.all.get(x)?.rec.b.id === rec.b.id) ?? v.vid) : v.vid;
        const key = `${winner} ${losers.join(' ')}`;
        const have = recorded.get(key);
        if (!have || ('vid' in have && have.vid !== undefined && compareVid(v.vid, have.vid) < 0)) recorded.set(key, { kind: 'conflict', what: 'edit', path: p, fid: g.fid, winner, losers, vid: v.vid });
      }
      out.push(...recorded.values());
      for (const m of g.members) {
        if (!m.alive.length) continue;
        for (const [vid, rm] of this.s.files.get(m.fid)!.rms) {
          if (this.graph.named.has(vid)) continue; // a later write answered it
          out.push({ kind: 'conflict', what: 'delete', path: p, fid: m.fid, rm: vid, device: deviceOf(vid), ...(rm.at !== undefined ? { at: rm.at } : {}), ...(rm.w ? { by: rm.w } : {}) });
        }
      }
    }
    const id = (c: ConflictEntry) => `${c.path}\u0000${c.what}\u0000${c.what === 'delete' ? c.rm : (c.vid ?? c.winner)}`;
    return out.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  }

  /** Every directory shown at or below `p`, deepest first. */
  dirsUnder(p: string): string[] {
    return [...this.tree.dirs].filter((d) => d === p || d.startsWith(p + '/')).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  }

  /** The groups shown strictly below directory `p` (live files and trash entries). */
  groupsUnder(p: string): Group[] {
    return [...this.tree.groups.values()].filter((g) => g.path.startsWith(p + '/')).sort(byPath);
  }

  /** The alive tags of directory `p` (what an rm or mv of it observes). */
  dirTags(p: string): Vid[] {
    const d = this.s.dirs.get(p);
    return d ? [...d.adds.keys()].filter((t) => !d.removed.has(t)).sort() : [];
  }

  /** True when directory `p` has an alive tag (`dirTags` not empty), without listing them. */
  hasDirTag(p: string): boolean {
    return tagged(this.s, p);
  }

  /** The parent directory of a path. */
  static parentOf(p: string): string {
    return parentOf(p);
  }
}

export { ROOT };

/** What a tree and graph show, in a form two of them compare by (`checkPatched`). */
function shown(t: Tree, g: VersionGraph): string {
  const sorted = <T>(xs: Iterable<T>) => [...xs].sort();
  return JSON.stringify({
    groups: sorted([...t.groups].map(([p, x]) => JSON.stringify([p, x]))),
    fids: sorted([...t.fids].map((x) => JSON.stringify(x))),
    dirs: sorted(t.dirs),
    children: sorted([...t.children].map(([d, c]) => JSON.stringify([d, sorted(c)]))),
    displaced: sorted(t.displaced),
    all: sorted(g.all.keys()),
    named: sorted(g.named),
    gone: sorted(g.gone),
  });
}

/** Patched views checked so far (see `checkPatched`). */
let patchedSeen = 0;

/**
 * A patched view must show what the view built from scratch shows (tests only: it walks every file again). The check
 * costs a full build, so past a few hundred files it runs on one patched view in 64 (the first included): else a test
 * of thousands of writes spends its time checking (CI: 98 s of a 120 s limit, most of it here).
 */
function checkPatched(v: SyncView): void {
  if (v.tree.fids.size > 500 && patchedSeen++ % 64 !== 0) return;
  const g = new VersionGraph(v.s);
  if (shown(v.tree, v.graph) !== shown(buildTree(v.s, g), g)) throw new Error('SyncView: the patched view differs from the view built from scratch');
  const fresh = new SyncView(v.s, v.reader);
  if (v.totalSize() !== fresh.totalSize()) throw new Error('SyncView: the patched view counts another total size');
}
