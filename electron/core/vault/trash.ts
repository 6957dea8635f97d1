/**
 * The trash: deleted memories whose versions the vault still keeps. Listing
 * and restoring read the State; emptying forgets those versions in one journal
 * record and then rewrites the segments that held them, so their encrypted
 * bytes leave the disk too, not only the index.
 */
import type { Unlocked } from './ops';
import type { MemoryOps, FileMeta, SizeLimits, TrashEntry } from './types';
import { VaultError } from './types';
import { m } from '../i18n/message';

/** Deleted memories with kept versions, sorted by path. */
export function listTrash(u: Unlocked): TrashEntry[] {
  return u.state.trashed();
}

/**
 * Brings a deleted memory back as a new version (provenance "restore") with
 * the text of `version` (default: the last one it had). Refuses with EXISTS
 * when a memory or folder now occupies the path, and NOT_FOUND when the path
 * is not in the trash. Call inside the vault's mutation queue.
 */
export async function restoreFromTrash(u: Unlocked, ops: MemoryOps, readVersion: (p: string, v: number) => Promise<string>, p: string, version?: number, limits?: SizeLimits): Promise<FileMeta> {
  const entry = u.state.trashed().find((t) => t.path === p);
  if (ops.stat(p)) throw new VaultError('EXISTS', m('errors:trash.pathTaken', { path: p }), p);
  if (!entry) throw new VaultError('NOT_FOUND', m('errors:trash.notThere', { path: p }), p);
  const v = version ?? entry.versions[entry.versions.length - 1]!.version;
  if (!entry.versions.some((e) => e.version === v)) throw new VaultError('NOT_FOUND', m('errors:trash.noVersion', { version: v, path: p }), p);
  const text = await readVersion(p, v);
  return ops.writeFile(p, text, { mode: 'create', source: 'user', by: { kind: 'restore', fromVersion: v }, ...(limits ? { limits } : {}) });
}

/**
 * Permanently removes the kept versions of deleted memories (`paths`, default
 * all of the trash) and returns how many memories were removed. The purge is
 * one durable journal record (a crash keeps all or none of it); two
 * checkpoints then move every other blob out of the segments that held the
 * purged ones and delete those files, and leave no manifest copy (the
 * fallback included) that still names them. If the app stops between the
 * record and the checkpoints, the versions are already gone from the vault;
 * their sealed bytes go at a later checkpoint. Call inside the mutation queue.
 */
export async function emptyTrash(u: Unlocked, paths?: string[]): Promise<number> {
  const wanted = paths ? new Set(paths) : undefined;
  const ps = u.state.trashed().map((t) => t.path).filter((p) => !wanted || wanted.has(p));
  if (!ps.length) return 0;
  const scrub = new Set<string>();
  for (const p of ps) for (const h of u.state.hist.get(p) ?? []) scrub.add(h.b.seg);
  await u.commit({ t: 'purge', ps });
  // The journal that held the purge record is the old journal after the first
  // checkpoint and kept for the fallback manifest; the second one lets it go.
  await u.store.checkpoint(u.state, true, scrub);
  await u.store.checkpoint(u.state, true, scrub);
  return ps.length;
}
