/**
 * The ops a device writes, built from its current view (docs/sync-design.md
 * §2.3): each names exactly what it saw and replaces, which is what makes
 * concurrent ops from other devices merge instead of overwrite. The checks
 * a change must pass (EXISTS, NOT_FOUND, limits…) stay in ops.ts; these only
 * shape the op.
 */
import type { Provenance } from '../types';
import { ROOT, type Fid } from './crdt';
import type { Vid } from './ids';
import type { BlobRef2, DirTags, ForgetOp, KdelOp, KputOp, MkdirOp, MvOp, PurgeOp, PutOp, RegOp, RmOp } from './op';
import type { RegScalar } from './crdt';
import type { SyncView } from './view';

/** A sealed new text: its blob, plaintext size and content id. */
export interface NewText {
  b: BlobRef2;
  s: number;
  k: string;
}

/**
 * A write of `p`: it continues the file shown there (live or in the trash:
 * a write to a deleted path brings its history back, as in v1) and replaces
 * all its heads and the deletes not yet answered; with nothing shown there it
 * creates a file whose id is the put's own vid `own`.
 */
export function putOp(view: SyncView, p: string, text: NewText, own: Vid, w?: Provenance): PutOp {
  const f: Fid | undefined = view.fidAt(p);
  // Writing over a conflict no device wrote down yet settles it: the losers are named so it stays listed for review.
  const r = view.resolve(p);
  return { t: 'put', f: f ?? own, ...(f ? {} : { p }), par: view.parFor(p), ...text, ...(w ? { w } : {}), ...(r?.kind === 'conflict' ? { lose: r.losers } : {}) };
}

/**
 * The put that writes a resolution down (§2.4 "Materialising"): a merge with
 * its merged text, or a conflict with the winner's own sealed bytes (same
 * blob) and the losers named. Undefined when `p` needs none.
 */
export function materializeOp(view: SyncView, p: string, merged?: NewText): PutOp | undefined {
  const r = view.resolve(p);
  const f = view.fidAt(p);
  if (!r || !f || r.kind === 'single') return undefined;
  const par = view.parFor(p);
  if (r.kind === 'merge') return merged ? { t: 'put', f, par, ...merged, w: { kind: 'system' }, m: 'merge' } : undefined;
  const win = view.graph.all.get(r.winner)!.rec;
  return { t: 'put', f, par, b: win.b, s: win.s, k: win.k, ...(win.w ? { w: win.w } : {}), m: 'conflict', lose: r.losers };
}

export function mkdirOp(p: string): MkdirOp {
  return { t: 'mkdir', p };
}

/** The observed tags of every directory at or below `p`. */
function tagsUnder(view: SyncView, p: string): DirTags[] {
  return view.dirsUnder(p).map((d) => ({ p: d, vs: view.dirTags(d) }));
}

/** Deletes the file or directory shown at `p`: only the heads and tags it saw, so concurrent writes survive. */
export function rmOp(view: SyncView, p: string, w?: Provenance): RmOp {
  const groups = view.isDir(p) ? view.groupsUnder(p) : [view.group(p)].filter((g) => g !== undefined);
  const files = groups.filter((g) => g.live).flatMap((g) => g.members.filter((m) => m.alive.length).map((m) => ({ f: m.fid, heads: m.alive })));
  return { t: 'rm', p, files, dirs: view.isDir(p) ? tagsUnder(view, p) : [], ...(w ? { w } : {}) };
}

/**
 * Moves the file or directory shown at `p` to `np`. A file takes its trashed
 * namesakes along (its whole history moves, as in v1); a directory takes its
 * live files and every directory below it.
 */
export function mvOp(view: SyncView, p: string, np: string): MvOp {
  const dir = view.isDir(p) && p !== ROOT;
  const groups = dir ? view.groupsUnder(p).filter((g) => g.live) : [view.group(p)].filter((g) => g !== undefined);
  const files = groups.flatMap((g) => g.members.map((m) => ({ f: m.fid, par: m.pathHeads, p: np + g.path.slice(p.length) })));
  return { t: 'mv', p, np, files, dirs: dir ? tagsUnder(view, p) : [] };
}

/**
 * Forgets the versions no file shows any more (outside the history window,
 * not a head, bytes still kept) and the internal values a later value of
 * their key replaced, once every device has seen it (kv.ts `superseded`;
 * `me`: the device writing the op): the compactor's op, so every device
 * agrees which bases are gone. Undefined when there are none.
 */
export function forgetOp(view: SyncView, me?: string): ForgetOp | undefined {
  const shown = new Set<Vid>();
  const candidates = new Set<Vid>();
  for (const [p, g] of view.tree.groups) {
    for (const v of view.versions(p)) if (v.vid) shown.add(v.vid);
    for (const v of view.graph.closure(g.members.flatMap((m) => m.heads))) candidates.add(v);
  }
  const vs = [...[...candidates].filter((v) => !shown.has(v) && !view.graph.gone.has(v)), ...view.kv.superseded(me)].sort();
  return vs.length ? { t: 'forget', vs } : undefined;
}

/** Empties the trash (`paths`, default all of it): every kept version of those deleted files. */
export function purgeOp(view: SyncView, paths?: readonly string[]): PurgeOp | undefined {
  const wanted = paths ? new Set(paths) : undefined;
  const files: PurgeOp['files'] = [];
  for (const [p, g] of view.tree.groups) {
    if (g.live || (wanted && !wanted.has(p))) continue;
    for (const m of g.members) {
      const vs = [...view.graph.closure(m.heads)].filter((v) => !view.graph.purged.has(v)).sort();
      if (vs.length) files.push({ f: m.fid, vs });
    }
  }
  return files.length ? { t: 'purge', files } : undefined;
}

export function kputOp(view: SyncView, k: string, b: BlobRef2): KputOp {
  return { t: 'kput', k, par: view.kv.heads(k), b };
}

/** Deletes internal key `k` (undefined when it has no value): only the values seen. */
export function kdelOp(view: SyncView, k: string): KdelOp | undefined {
  const par = view.kv.heads(k);
  return par.length ? { t: 'kdel', k, par } : undefined;
}

export function regOp(view: SyncView, r: string, v: RegScalar): RegOp {
  return { t: 'reg', r, par: view.kv.registerHeads(r), v };
}
