/**
 * Kept versions, the trash and verification of a format-v2 session: the same
 * answers as v1's history.ts, trash.ts and Vault.verify, read from the view.
 * Version numbers are ordinals (§2.4); each entry also names its vid and the
 * device that wrote it.
 */
import { wipe } from '../crypto';
import { VaultError, type FileMeta, type HistoryEntry, type MemoryOps, type Provenance, type SizeLimits, type TrashEntry, type VersionEntry } from '../types';
import { purgeOp, regOp } from './build';
import { checkpoint2 } from './compact2';
import { readCurrent, readVid } from './ops2';
import type { SyncSession } from './session2';
import { m } from '../../i18n/message';

/** The kept versions of `p` other than its current one, each with its vid and device. */
export function history2(s: SyncSession, p: string): HistoryEntry[] {
  return s.view
    .versions(p)
    .filter((v) => !v.current)
    .map((v) => ({ version: v.version, size: v.size, modified: v.modified, ...(v.vid ? { vid: v.vid, device: v.device } : {}) }));
}

export function versions2(s: SyncSession, p: string): VersionEntry[] {
  return s.view.versions(p);
}

/** Who wrote the current version of `p`, when recorded. */
export function writer2(s: SyncSession, p: string): Provenance | undefined {
  return s.view.versions(p).at(-1)?.by;
}

/** The text of version `version` (an ordinal, or a vid) of `p`: current, kept, or in the trash. */
export async function readVersion2(s: SyncSession, p: string, version: number | string): Promise<string> {
  const entry = s.view.versions(p).find((v) => (typeof version === 'string' ? v.vid === version : v.version === version));
  if (!entry) throw new VaultError('NOT_FOUND', m('errors:history.noVersion', { version, path: p }), p);
  if (entry.current && s.view.stat(p)) return readCurrent(s, p);
  return readVid(s, entry.vid!, `${p} (version ${entry.version})`);
}

export function trash2(s: SyncSession): TrashEntry[] {
  return s.view.trashed();
}

/** As trash.ts `restoreFromTrash`, over the view. */
export async function restoreDeleted2(s: SyncSession, ops: MemoryOps, p: string, version: number | undefined, limits: SizeLimits | undefined): Promise<FileMeta> {
  const entry = s.view.trashed().find((t) => t.path === p);
  if (ops.stat(p)) throw new VaultError('EXISTS', m('errors:trash.pathTaken', { path: p }), p);
  if (!entry) throw new VaultError('NOT_FOUND', m('errors:trash.notThere', { path: p }), p);
  const v = version ?? entry.versions[entry.versions.length - 1]!.version;
  if (!entry.versions.some((e) => e.version === v)) throw new VaultError('NOT_FOUND', m('errors:trash.noVersion', { version: v, path: p }), p);
  const text = await readVersion2(s, p, v);
  return ops.writeFile(p, text, { mode: 'create', source: 'user', by: { kind: 'restore', fromVersion: v }, ...(limits ? { limits } : {}) });
}

/**
 * Empties the trash (`paths`, default all of it): one `purge` op, then two
 * checkpoints that copy every other blob out of this device's files holding
 * the purged ones and remove them. Other devices scrub their own files when
 * they next run (§4). Returns how many deleted memories were removed.
 */
export async function emptyTrash2(s: SyncSession, paths?: string[]): Promise<number> {
  const wanted = paths ? new Set(paths) : undefined;
  const ps = s.view
    .trashed()
    .map((t) => t.path)
    .filter((p) => !wanted || wanted.has(p));
  if (!ps.length) return 0;
  const op = purgeOp(s.view, ps);
  if (!op) return 0;
  const scrub = new Set<string>();
  for (const f of op.files) for (const vid of f.vs) {
    const b = s.view.graph.all.get(vid)?.rec.b.id;
    if (b) scrub.add(b);
  }
  await s.commit(op);
  await checkpoint2(s.store, s.host.counter(), scrub);
  await checkpoint2(s.store, s.host.counter(), scrub);
  return ps.length;
}

export async function setDepth2(s: SyncSession, n: number): Promise<void> {
  await s.commit(regOp(s.view, 'depth', n));
}

/**
 * Every problem with the vault's files as this device sees them (damage,
 * rollback and forks of other devices, blobs that fail), and apart from them
 * what is still arriving from other devices (not a problem).
 */
export async function verify2(s: SyncSession): Promise<{ problems: string[]; waiting: string[] }> {
  await s.ingest();
  const r = s.store.report;
  const problems = [...s.store.problems, ...r.damage, ...r.rollback, ...r.forks];
  if (r.newer) problems.push('devices: records written by a newer version of Mnemo (update Mnemo on this computer)');
  const probe = async (kind: 'blobs' | 'internal', b: { id: string; len: number; h: string }, subject: string) => {
    try {
      wipe(await s.store.blobs.read(kind, b, subject, () => s.store.learnIndexes()));
    } catch {
      problems.push(`${subject}: content is damaged or missing`);
    }
  };
  const v = s.view;
  for (const [p, g] of v.tree.groups) {
    for (const e of v.versions(p)) {
      if (!e.vid) continue;
      await probe('blobs', v.graph.all.get(e.vid)!.rec.b, g.live && e.current ? p : `${p} (version ${e.version})`);
    }
  }
  // Each internal value, and the base its merge reads while it has several (not forgotten, so its writer keeps it).
  for (const k of v.kv.keys('')) {
    const at = v.kv.mergeInputs(k)!;
    for (const { b } of at.base ? [...at.heads, at.base] : at.heads) await probe('internal', b, `internal:${k}`);
  }
  const byDevice = new Map<string, string[]>();
  for (const w of r.waiting) byDevice.set(w.device, [...(byDevice.get(w.device) ?? []), w.what]);
  const waiting = [...byDevice].map(([dev, what]) => `waiting for ${what.length} file${what.length === 1 ? '' : 's'} from device ${dev.slice(0, 8)}…: ${what.join('; ')}`);
  return { problems: [...new Set(problems)], waiting };
}
