/**
 * Where the memory files of a SyncState are shown (docs/sync-design.md §2.4):
 * - each file id's path is the newest head of its path register;
 * - file ids whose paths collide (two devices created the same path, or a
 *   rename met a concurrent create) are shown as one file, under the smallest
 *   file id, their alive heads together (so they resolve as concurrent heads);
 * - a directory exists iff it has an alive tag (observed-remove set) or a
 *   live entry below it; a file whose path is also a directory is shown
 *   beside it as `<path>.conflict-<dev8>-<seq>` (that name taken: `-2`, `-3`…) ("decided in stage 2"), so
 *   neither hides the other and renaming it settles the clash.
 */
import { ancestorsOf, ROOT, type Fid, type SyncState } from './crdt';
import { compareStamped } from './hlc';
import { compareVid, parseVid, type Vid } from './ids';
import type { VersionGraph } from './graph';

/** One file id as the tree sees it. */
export interface FidInfo {
  fid: Fid;
  /** Heads (bytes kept), sorted. */
  heads: Vid[];
  /** Heads no delete removed. */
  alive: Vid[];
  /** The path register's winning value and the heads of the register. */
  path: string;
  pathAt: number;
  pathSub: boolean;
  pathHeads: Vid[];
  /** When the file was created: its creating put's (or v1's) time. */
  created: number;
}

/** Files shown at one path: the ids whose path is it, the displayed one first. */
export interface Group {
  path: string;
  /** The id shown: the smallest alive one, else the smallest. */
  fid: Fid;
  members: FidInfo[];
  live: boolean;
}

export interface Tree {
  groups: Map<string, Group>;
  /** Every file id with kept heads and a known path, shown or not. */
  fids: Map<Fid, FidInfo>;
  /** Every directory shown, ROOT included. */
  dirs: Set<string>;
  /** Direct children (files and directories) of each directory. */
  children: Map<string, Set<string>>;
  /** Names a file stepping aside did not take because something was shown there (it took the next free one). */
  displaced: Set<string>;
}

export const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/'));

/** The name a file is shown under when a directory holds its path. */
export function asideName(p: string, fid: Fid): string {
  const parts = parseVid(fid);
  const tag = parts?.seq !== undefined ? `${parts.dev.slice(0, 8)}-${parts.seq}` : 'v1';
  return `${p}.conflict-${tag}`;
}

function fidInfo(s: SyncState, g: VersionGraph, fid: Fid): FidInfo | undefined {
  const f = s.files.get(fid)!;
  const heads = g.heads(s, fid);
  if (!heads.length) return undefined; // absorbed into another file, or its every version purged
  const removed = new Set<Vid>();
  for (const rm of f.rms.values()) for (const h of rm.heads) removed.add(h);
  const namedHere = new Set<Vid>();
  for (const rec of f.path.values()) for (const p of rec.par) namedHere.add(p);
  let best: { vid: Vid; h: readonly [number, number] } | undefined;
  const pathHeads: Vid[] = [];
  for (const [vid, rec] of f.path) {
    if (namedHere.has(vid)) continue;
    pathHeads.push(vid);
    if (!best || compareStamped({ h: rec.h, vid }, best) > 0) best = { vid, h: rec.h };
  }
  if (!best) return undefined; // its creation has not arrived yet: not shown
  const win = f.path.get(best.vid)!;
  let created = f.path.get(fid)?.at;
  if (created === undefined) for (const v of f.versions.values()) created = Math.min(created ?? v.at, v.at);
  return { fid, heads, alive: heads.filter((h) => !removed.has(h)), path: win.p, pathAt: win.at, pathSub: win.sub === true, pathHeads: pathHeads.sort(), created: created ?? 0 };
}

/**
 * `tree` (laid out before a new version of `fid` alone, `g` already holding it) brought up to date in place: true
 * when only that file's entry changes (it is shown alone at its path, and stays there, alive), or when it is a new
 * file at a path nothing is shown at, under no file; false, changing nothing, when the tree must be laid out again.
 */
export function patchTree(tree: Tree, s: SyncState, g: VersionGraph, fid: Fid): boolean {
  const was = tree.fids.get(fid);
  const info = fidInfo(s, g, fid);
  if (!info) return false;
  if (!was) return placeFile(tree, info);
  if (!was.alive.length) return false;
  const grp = tree.groups.get(was.path);
  if (!grp?.live || grp.members.length !== 1 || grp.members[0]!.fid !== fid) return false;
  // Written again, where it was.
  if (info.alive.length && info.path === was.path) {
    tree.fids.set(fid, info);
    tree.groups.set(was.path, { ...grp, members: [info] });
    return true;
  }
  // Deleted or moved: the folders above it must stay on their own tags (ops2.ts `keepParents` gives them some).
  if (!ancestorsOf(was.path).every((a) => tagged(s, a))) return false;
  if (!info.alive.length && info.path === was.path) {
    // Deleted: in the trash, at its path.
    tree.fids.set(fid, info);
    tree.groups.set(was.path, { ...grp, members: [info], live: false });
    unchild(tree, was.path);
    return true;
  }
  // (Moved away from a name a file stepping aside did not take: it would take it now.)
  if (!info.alive.length || !canPlace(tree, info.path) || tree.displaced.has(was.path)) return false;
  // Moved, alive, to where nothing was shown.
  tree.groups.delete(was.path);
  unchild(tree, was.path);
  return placeFile(tree, info);
}

/** True when directory `d` has a tag of its own no rm removed. */
export function tagged(s: SyncState, d: string): boolean {
  const state = s.dirs.get(d);
  for (const tag of state?.adds.keys() ?? []) if (!state!.removed.has(tag)) return true;
  return false;
}

/** Whether a live file can be shown at `p` as it is: nothing shown there, no folder there, no file above it. */
function canPlace(tree: Tree, p: string): boolean {
  // (A file shown where a folder now has to be steps aside, buildTree: laid out again.)
  return p.startsWith(ROOT + '/') && !tree.groups.has(p) && !tree.dirs.has(p) && !ancestorsOf(p).some((a) => tree.groups.has(a));
}

function addChild(tree: Tree, p: string): void {
  const parent = parentOf(p);
  let set = tree.children.get(parent);
  if (!set) tree.children.set(parent, (set = new Set()));
  set.add(p);
}

function unchild(tree: Tree, p: string): void {
  const set = tree.children.get(parentOf(p));
  set?.delete(p);
  if (set && !set.size) tree.children.delete(parentOf(p));
}

/** A live file shown alone at a new path: its entry, its group, the folders above it and the children they gain. */
function placeFile(tree: Tree, info: FidInfo): boolean {
  if (!info.alive.length || !canPlace(tree, info.path)) return false;
  for (const a of ancestorsOf(info.path)) {
    if (tree.dirs.has(a)) continue;
    tree.dirs.add(a);
    addChild(tree, a);
  }
  tree.fids.set(info.fid, info);
  tree.groups.set(info.path, { path: info.path, fid: info.fid, members: [info], live: true });
  addChild(tree, info.path);
  return true;
}

/** Lays out the files and directories of `s`. */
export function buildTree(s: SyncState, g: VersionGraph): Tree {
  const byPath = new Map<string, FidInfo[]>();
  const fids = new Map<Fid, FidInfo>();
  for (const fid of s.files.keys()) {
    const info = fidInfo(s, g, fid);
    if (!info) continue;
    fids.set(fid, info);
    const list = byPath.get(info.path);
    if (list) list.push(info);
    else byPath.set(info.path, [info]);
  }
  const dirs = new Set<string>([ROOT]);
  const addDir = (d: string) => {
    if (dirs.has(d) || (d !== ROOT && !d.startsWith(ROOT + '/'))) return;
    dirs.add(d);
    for (const a of ancestorsOf(d)) dirs.add(a);
  };
  for (const [p, d] of s.dirs) for (const tag of d.adds.keys()) if (!d.removed.has(tag)) addDir(p);
  const groups = new Map<string, Group>();
  for (const [p, infos] of byPath) {
    infos.sort((a, b) => compareVid(a.fid, b.fid));
    const live = infos.some((i) => i.alive.length > 0);
    const fid = (infos.find((i) => i.alive.length > 0) ?? infos[0]!).fid;
    if (live) for (const a of ancestorsOf(p)) addDir(a);
    groups.set(p, { path: p, fid, members: infos, live });
  }
  // A live file cannot share its path with a directory: it steps aside (trash entries keep their path, as in v1), to a
  // name nothing else is shown at: a memory (or trash entry, or folder) that has that very name keeps it, and the file
  // takes `<aside>-2`, `-3`…, in path order, the same on every device.
  const asides = [...groups].filter(([p, grp]) => grp.live && dirs.has(p)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [p] of asides) groups.delete(p);
  const displaced = new Set<string>();
  for (const [p, grp] of asides) {
    const base = asideName(p, grp.fid);
    let aside = base;
    for (let n = 2; groups.has(aside) || dirs.has(aside); n++) {
      displaced.add(aside);
      aside = `${base}-${n}`;
    }
    groups.set(aside, { ...grp, path: aside });
  }
  const children = new Map<string, Set<string>>();
  const child = (p: string) => {
    const parent = parentOf(p);
    let set = children.get(parent);
    if (!set) children.set(parent, (set = new Set()));
    set.add(p);
  };
  for (const d of dirs) if (d !== ROOT) child(d);
  for (const [p, grp] of groups) if (grp.live) child(p);
  return { groups, fids, dirs, children, displaced };
}
