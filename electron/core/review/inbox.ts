/**
 * The review inbox: which memory changes by Claude the user has not looked at
 * yet, per project. What the user acknowledged is one value per project in
 * the vault's internal store (`review/<project id>`), so it is encrypted, and
 * a mark is one durable write: a crash leaves the old records or the new ones.
 *
 * Nothing is stored for what the user never marked: a file is to review when
 * its current version was written by a counting writer (see rules.ts) and no
 * record acknowledges that exact version. So a vault opened here for the first
 * time shows everything Claude wrote as to review, and the user's own save
 * needs no write to count as reviewed (it is the user's version).
 *
 * When several computers may write the vault (`internal.scheme()` 2), each
 * keeps its own marks, `review/<project id>/<device>`, so marks made on two
 * computers at once are all kept: a path reads as the record that
 * acknowledges most (`mergeRecords`) of this computer's, every other
 * computer's and the value kept before (`review/<project id>`), and a mark
 * writes that merged record set as this computer's (docs/sync-design.md §3).
 *
 * Conflicts between computers (format 2) are listed too, as `conflict` entries (conflicts.ts); a mark of one
 * stores its id in the same value, under `conflicts`.
 *
 * Listing costs one metadata lookup per file and reads a file's version list
 * only for files that are to review (and not even that for a first version);
 * no memory text is decrypted.
 */
import { MEMORY_ROOT } from '../memory/paths';
import { locateVaultPath, scopeOps, type MemoryScope } from '../projects/scope';
import { FIRST_PROJECT_ID, Projects } from '../projects/store';
import type { Vault } from '../vault/vault';
import { VaultError, type FileMeta, type TrashEntry, type VaultApi, type VaultChange } from '../vault/types';
import { acknowledges, authorOf, baseVersion, recordFor, needsReview, provenanceOf, type ReviewEntry, type ReviewRecord } from './rules';
import { m } from '../i18n/message';
import { computerNames, conflictEntries, conflictsIn, keptAcks, mergeAcks, type ConflictSource } from './conflicts';

export type { ConflictDetail, ReviewEntry, ReviewRecord } from './rules';

/** The vault calls the inbox uses: the public API plus who wrote what and the trash (and, format 2, the conflicts). */
export type ReviewVault = VaultApi & Pick<Vault, 'versions' | 'writer' | 'trash'> & ConflictSource;

/** `vault` as a ReviewVault: INVALID for a vault view without versions, writers and the trash. */
export function reviewVault(vault: VaultApi): ReviewVault {
  const v = vault as Partial<ReviewVault>;
  if (typeof v.versions !== 'function' || typeof v.writer !== 'function' || typeof v.trash !== 'function') {
    throw new VaultError('INVALID', m('errors:review.notAVault'));
  }
  return vault as ReviewVault;
}

interface Stored {
  files: Record<string, ReviewRecord>;
  /** Ids of the conflicts acknowledged (format 2 only; absent when none). */
  conflicts?: string[];
}

/** A project's records and acknowledged conflicts, as read (several computers' values merged). */
interface Loaded {
  files: Record<string, ReviewRecord>;
  acks: Set<string>;
}

const keyOf = (projectId: string) => `review/${projectId}`;

/** How much a record acknowledges: a version seen (and its modified time); a move note only what it had seen. */
const rank = (r: ReviewRecord): [number, number] => ('v' in r ? [r.v, r.m] : [r.seen ?? 0, -Infinity]);

/**
 * Several computers' records of one project merged path by path: the record
 * that acknowledges the highest version wins (then the newest modified time,
 * then a deterministic order), the same on every computer.
 */
export function mergeRecords(values: ReadonlyArray<Record<string, ReviewRecord>>): Record<string, ReviewRecord> {
  const out: Record<string, ReviewRecord> = {};
  for (const files of values) {
    for (const [path, rec] of Object.entries(files)) {
      const had = out[path];
      if (!had) {
        out[path] = rec;
        continue;
      }
      const [a, b] = [rank(rec), rank(had)];
      if (a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && JSON.stringify(rec) > JSON.stringify(had))))) out[path] = rec;
    }
  }
  return out;
}
/** One queue per vault: marks and move notes are read-modify-writes of one value. */
const queues = new WeakMap<object, Promise<unknown>>();

/** One item to mark: the path as the project sees it and the version the user saw (`conflict`: the conflict's id). */
export interface MarkItem {
  path: string;
  version: number;
  conflict?: string;
}

/** Lists, counts and marks what waits for review in each project's memory. */
export class ReviewInbox {
  constructor(private readonly vault: ReviewVault) {}

  /** Resolves once every queued mark and move note is written (before closing a vault the inbox tracked). */
  async idle(): Promise<void> {
    await queues.get(this.vault);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(this.vault) ?? Promise.resolve()).then(fn, fn);
    queues.set(this.vault, run.catch(() => undefined));
    return run;
  }

  private async load(projectId: string): Promise<Loaded> {
    const read = async (key: string) => {
      const stored = await this.vault.internal.getJSON<Stored>(key);
      const files = stored && typeof stored.files === 'object' && stored.files !== null ? { ...stored.files } : {};
      return { files, acks: stored?.conflicts };
    };
    if (this.vault.internal.scheme?.() !== 2) {
      const one = await read(keyOf(projectId));
      return { files: one.files, acks: mergeAcks([one.acks]) };
    }
    const values = [await read(keyOf(projectId))];
    for (const key of this.vault.internal.keys(`${keyOf(projectId)}/`)) values.push(await read(key));
    return { files: mergeRecords(values.map((v) => v.files)), acks: mergeAcks(values.map((v) => v.acks)) };
  }

  /** Stores the records of a project: its one value (one writer), or this computer's own (several). */
  private async save(projectId: string, recs: Record<string, ReviewRecord>, acks: ReadonlySet<string>): Promise<void> {
    const device = this.vault.internal.scheme?.() === 2 ? await this.vault.internal.device?.(true) : undefined;
    const conflicts = acks.size ? { conflicts: [...acks].sort() } : {};
    await this.vault.internal.putJSON(device ? `${keyOf(projectId)}/${device}` : keyOf(projectId), { files: recs, ...conflicts } satisfies Stored);
  }

  /** What waits for review in `projectId` (default: the first project), files by path, then deleted ones. */
  async list(projectId: string = FIRST_PROJECT_ID): Promise<ReviewEntry[]> {
    const scope = await new Projects(this.vault).memoryScope(projectId);
    return this.serial(async () => {
      const { files, acks } = await this.load(projectId);
      const conflicts = conflictsIn(this.vault, scope).filter((c) => !acks.has(c.id));
      const names = conflicts.length ? await computerNames(this.vault) : new Map<string, string>();
      return [...this.compute(scope, files, true), ...conflictEntries(conflicts, names)];
    });
  }

  /** How many entries wait in each live project, by project id. */
  async counts(): Promise<Record<string, number>> {
    const projects = new Projects(this.vault);
    const out: Record<string, number> = {};
    for (const p of await projects.list()) {
      const scope = await projects.memoryScope(p.id);
      out[p.id] = await this.serial(async () => {
        const { files, acks } = await this.load(p.id);
        return this.compute(scope, files, false).length + conflictsIn(this.vault, scope).filter((c) => !acks.has(c.id)).length;
      });
    }
    return out;
  }

  /**
   * Acknowledges exactly the listed versions: a file changed again since the
   * user saw `version` stays to review (diffed from that version). Items whose
   * version is not (or no longer) in the memory's history are skipped; a
   * conflict (`conflict`: its id) is marked when it is listed at that path.
   * Durable before it resolves; returns how many items were marked.
   */
  async mark(projectId: string, items: MarkItem[]): Promise<number> {
    const scope = await new Projects(this.vault).memoryScope(projectId);
    return this.serial(async () => {
      const { files: recs, acks } = await this.load(projectId);
      const ops = scopeOps(this.vault.memory, scope);
      const trash = new Map(this.trashIn(scope).map((t) => [t.path, t]));
      const conflicts = items.some((i) => i.conflict !== undefined) ? conflictsIn(this.vault, scope) : [];
      let marked = 0;
      for (const { path, version, conflict } of items) {
        if (conflict !== undefined) {
          if (!conflicts.some((c) => c.id === conflict && c.path === path)) continue;
          acks.add(conflict);
          marked++;
          continue;
        }
        const meta = ops.stat(path);
        if (meta?.kind === 'file') {
          if (!this.vault.versions(scope.toVault(path)).some((v) => v.version === version)) continue;
          // Another version than the current one: recorded so the diff starts there, but it acknowledges nothing newer.
          recs[path] = { v: version, m: version === meta.version ? meta.modified : -1, c: meta.created };
        } else {
          const gone = trash.get(path);
          if (gone?.versions.at(-1)?.version !== version) continue;
          recs[path] = { v: version, m: gone.deleted ?? 0 };
        }
        marked++;
      }
      // Records of paths that hold nothing any more only grow the value.
      for (const p of Object.keys(recs)) if (ops.stat(p)?.kind !== 'file' && !trash.has(p)) delete recs[p];
      // So do acknowledgements of conflicts that can never be listed again.
      await this.save(projectId, recs, new Set(acks.size ? keptAcks(acks, this.vault, this.vault.trash()) : []));
      return marked;
    });
  }

  /**
   * Keeps the records right across renames (subscribe once per opened vault):
   * a file Claude or a script moved is to review at its new path whoever wrote
   * it; a file the user moved keeps what the user had acknowledged. A crash
   * before the note is written loses only the note, not any mark.
   */
  track(): () => void {
    return this.vault.onChange((c) => {
      if (c.op !== 'rename') return;
      // What moved is read now, as the rename lands: by the time the note is written, later changes in the same turn
      // (another rename of the same file) may have moved it on, and the note must describe this rename alone.
      const moved = this.movedFiles(c.newPath);
      void this.noteRename(c, moved).catch(() => undefined);
    });
  }

  /** The files at `vaultPath` (a file, or everything below a folder), as they are now. */
  private movedFiles(vaultPath: string): FileMeta[] {
    try {
      const top = this.vault.memory.stat(vaultPath);
      if (top?.kind === 'file') return [top];
      return top ? this.vault.memory.list(vaultPath, Infinity).flatMap((e) => (e.kind === 'file' ? [e] : [])) : [];
    } catch {
      return [];
    }
  }

  private async noteRename(c: Extract<VaultChange, { op: 'rename' }>, moved: FileMeta[]): Promise<void> {
    const from = locateVaultPath(c.path);
    const to = locateVaultPath(c.newPath);
    // Between projects a move is a new file in the other one, which the writer rule already covers.
    if (from.project !== to.project || moved.length === 0) return;
    const projectId = from.project ?? FIRST_PROJECT_ID;
    // Queued at once, so a listing asked for after the rename waits for this note.
    await this.serial(async () => {
      if (!this.vault.isUnlocked()) return;
      const { files: recs, acks } = await this.load(projectId);
      for (const file of moved) {
        const rel = file.path.slice(c.newPath.length);
        const [old, now] = [from.path + rel, to.path + rel];
        const rec = recs[old];
        delete recs[old];
        if (c.source === 'claude' || c.source === 'cli') {
          const own = recordFor(rec, file.created);
          const seen = own && 'v' in own ? own.v : own?.seen;
          const by = c.by && needsReview(c.by) ? { by: c.by } : {};
          recs[now] = { moved: c.source, from: rec && 'moved' in rec ? rec.from : old, ...(seen !== undefined ? { seen } : {}), ...by };
        } else if (rec && 'v' in rec) {
          // Only a record of this very memory carries over (a rename keeps its creation time).
          if (rec.c === file.created) recs[now] = rec.v === file.version ? { v: rec.v, m: file.modified, c: rec.c } : rec;
          else delete recs[now];
        } else if (rec) recs[now] = rec;
        else delete recs[now];
      }
      await this.save(projectId, recs, acks);
    });
  }

  private trashIn(scope: MemoryScope): TrashEntry[] {
    return this.vault.trash().flatMap((t) => {
      const path = scope.fromVault(t.path);
      return path ? [{ ...t, path }] : [];
    });
  }

  /** The entries to review; `detailed` adds each one's reviewed version (reads version lists of those entries only). */
  private compute(scope: MemoryScope, recs: Record<string, ReviewRecord>, detailed: boolean): ReviewEntry[] {
    const out: ReviewEntry[] = [];
    for (const e of scopeOps(this.vault.memory, scope).list(MEMORY_ROOT, Infinity)) {
      if (e.kind !== 'file') continue;
      const rec = recordFor(recs[e.path], e.created);
      if (acknowledges(rec, e.version, e.modified, e.created)) continue;
      const vaultPath = scope.toVault(e.path);
      if (rec && 'moved' in rec) {
        // Diffed from the text the user last saw (its own, when the user saw or wrote the current text), so a
        // change made before the move is not buried in a whole new text.
        const versions = detailed ? this.vault.versions(vaultPath) : [];
        const base = !detailed ? undefined : needsReview(authorOf(versions, e.version, rec.seen)) ? baseVersion(versions, rec.seen) : e.version;
        out.push({ path: e.path, kind: 'new', version: e.version, ...(base !== undefined ? { reviewedVersion: base } : {}), by: rec.by ?? provenanceOf(rec.moved), from: rec.from });
        continue;
      }
      const acknowledged = rec?.v;
      const writer = this.vault.writer(vaultPath);
      // A restore brings back older text: whoever wrote that text decides (reads the version list of restores only).
      const by = writer?.kind === 'restore' ? authorOf(this.vault.versions(vaultPath), e.version, acknowledged) : writer;
      if (!needsReview(by) || !by) continue;
      // A first version with nothing acknowledged has no earlier text: new, without reading its history.
      const versions = !detailed || (e.version === 1 && acknowledged === undefined) ? [] : this.vault.versions(vaultPath);
      const base = baseVersion(versions, acknowledged);
      // Its oldest kept version is not its first: the earlier ones (perhaps the one the user saw) were let go, so it
      // is a change, just one with nothing left to diff against.
      const changed = base !== undefined || acknowledged !== undefined || (versions[0]?.version ?? 1) > 1;
      out.push({ path: e.path, kind: changed ? 'changed' : 'new', version: e.version, ...(base !== undefined ? { reviewedVersion: base } : {}), by });
    }
    for (const t of this.trashIn(scope)) {
      const last = t.versions.at(-1);
      if (!last || !needsReview(t.by) || !t.by) continue;
      if (acknowledges(recs[t.path], last.version, t.deleted ?? 0)) continue;
      out.push({ path: t.path, kind: 'deleted', version: last.version, by: t.by });
    }
    return out;
  }
}
