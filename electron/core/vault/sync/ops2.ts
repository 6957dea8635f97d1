/**
 * The memory namespace and the internal store of a format-v2 session, with the
 * same checks and errors as v1's ops.ts: the checks read the view, the op is
 * built from it (build.ts: it names what it replaces), recorded durably, and
 * the view rebuilt. Version numbers are the view's ordinals (§2.4).
 */
import { sizeProblem } from '../../memory/limits';
import { fromUtf8, utf8, wipe } from '../crypto';
import { provenanceOf, type ImportItem } from '../ops';
import { VaultError, type ChangeSource, type FileMeta, type InternalStore, type MemoryOps, type Provenance, type WriteOptions } from '../types';
import { contentId, sealBlob2 } from './blobs2';
import { kdelOp, kputOp, mkdirOp, mvOp, putOp, rmOp, type NewText } from './build';
import { ancestorsOf, ROOT } from './crdt';
import { formatVid } from './ids';
import type { PutOp } from './op';
import type { SyncSession } from './session2';
import { m } from '../../i18n/message';

const notFound = (p: string) => new VaultError('NOT_FOUND', m('errors:memory.notFound', { path: p }), p);

function checkInside(p: string): void {
  if (p !== ROOT && !p.startsWith(ROOT + '/')) throw new VaultError('INVALID', m('errors:memory.outside', { path: p, root: ROOT }), p);
}

function checkParents(s: SyncSession, p: string): void {
  for (const dir of ancestorsOf(p).reverse()) {
    if (s.view.kind(dir) === 'file') throw new VaultError('NOT_A_DIRECTORY', m('errors:memory.parentIsFile', { path: dir }), dir);
    if (s.view.isDir(dir)) return;
  }
}

/** Seals a memory text: its blob bytes and the put's text fields. */
function sealText(s: SyncSession, plain: Uint8Array): { bytes: Uint8Array; text: NewText } {
  const { bytes, ref } = sealBlob2(s.store.o.vaultId, s.keys, 'blobs', plain);
  return { bytes, text: { b: ref, s: plain.length, k: contentId(s.contentKey, plain) } };
}

/** The current text of the file shown at `p` (a merge not yet written: the merged text). */
export async function readCurrent(s: SyncSession, p: string): Promise<string> {
  const r = s.view.resolve(p);
  if (!r) throw s.view.isDir(p) ? new VaultError('NOT_A_FILE', m('errors:memory.isFolder', { path: p }), p) : notFound(p);
  if (r.kind === 'merge') return r.text;
  return readVid(s, r.kind === 'single' ? r.vid : r.winner, p);
}

/** The text of version `vid` (a memory's). */
export async function readVid(s: SyncSession, vid: string, subject: string): Promise<string> {
  const at = s.view.graph.all.get(vid);
  if (!at) throw notFound(subject);
  const bytes = await s.store.blobs.read('blobs', at.rec.b, subject, () => s.store.learnIndexes());
  try {
    return fromUtf8(bytes);
  } finally {
    wipe(bytes);
  }
}

/**
 * Before something leaves `p` (a delete, a move): the folders above it that are shown only because something lives
 * under them (no mkdir of their own: a file created in a new folder makes none) are made for good, so they stay, as
 * format 1, a file system and the memory tool's reference keep a folder whose last file went. Its own record, ahead:
 * a cut after it shows the same folders as before.
 */
async function keepParents(s: SyncSession, p: string): Promise<void> {
  const dirs = ancestorsOf(p).filter((d) => !s.view.hasDirTag(d));
  if (dirs.length) await s.commit(dirs.length === 1 ? mkdirOp(dirs[0]!) : { t: 'batch', ops: dirs.map(mkdirOp) });
}

/**
 * The file just written to `p` (file id `fid`) as shown now: at `p`, unless records of another computer applied while it
 * was written (a read or a checkpoint learning where bytes lie ingests: ckpt-read.ts `learnIndexes`) moved it, or a
 * folder took its path: then where that file is shown. The write is durable and applied either way.
 */
function writtenMeta(s: SyncSession, p: string, fid: string): FileMeta {
  const here = s.view.stat(p);
  if (here?.kind === 'file') return here;
  for (const g of s.view.tree.groups.values()) {
    if (!g.live || !g.members.some((m) => m.fid === fid)) continue;
    const meta = s.view.stat(g.path);
    if (meta?.kind === 'file') return meta;
  }
  throw new VaultError('IO', m('errors:io.failed', { what: m('errors:io.action.saveChange') }), p);
}

/** MemoryOps over the session `get()` returns (LOCKED when there is none). */
export function memoryOps2(get: () => SyncSession): MemoryOps {
  return {
    stat: (p) => get().view.stat(p),
    kind: (p) => get().view.kind(p),
    list: (dir, depth) => {
      const v = get().view;
      if (!v.isDir(dir)) throw v.stat(dir) ? new VaultError('NOT_A_DIRECTORY', m('errors:memory.isFile', { path: dir }), dir) : notFound(dir);
      return v.list(dir, depth);
    },
    totalSize: () => get().view.totalSize(),
    readFile: (p) => readCurrent(get(), p),
    async writeFile(p, text, opts: WriteOptions): Promise<FileMeta> {
      checkInside(p);
      const s = get();
      if (p === ROOT || s.view.isDir(p)) throw new VaultError('NOT_A_FILE', m('errors:memory.isFolder', { path: p }), p);
      const existing = s.view.stat(p);
      const old = existing?.kind === 'file' ? existing : undefined;
      if (opts.mode === 'create' && old) throw new VaultError('EXISTS', m('errors:memory.exists', { path: p }), p);
      if (opts.mode === 'update' && !old) throw notFound(p);
      if (opts.expectedVersion !== undefined && (old?.version ?? 0) !== opts.expectedVersion) {
        throw new VaultError('CONFLICT', old ? m('errors:memory.changedSince', { path: p, version: old.version }) : m('errors:memory.deletedSince', { path: p }), p);
      }
      checkParents(s, p);
      const plain = utf8(text);
      const problem = opts.limits && sizeProblem(p, plain.length, old?.size ?? 0, s.view.totalSize(), opts.limits);
      if (problem) {
        wipe(plain);
        throw new VaultError('LIMIT', problem, p);
      }
      const { bytes, text: t } = sealText(s, plain);
      wipe(plain);
      const own = await s.nextVid();
      const put = putOp(s.view, p, t, own, opts.by ?? provenanceOf(opts.source));
      await s.commit(put, bytes);
      const meta = writtenMeta(s, p, put.f);
      s.host.emit({ op: 'write', path: meta.path, version: meta.version, source: opts.source, created: !old });
      return meta;
    },
    async mkdir(p, source: ChangeSource) {
      checkInside(p);
      const s = get();
      if (s.view.stat(p)?.kind === 'file') throw new VaultError('NOT_A_DIRECTORY', m('errors:memory.isFile', { path: p }), p);
      if (s.view.isDir(p)) return;
      checkParents(s, p + '/x');
      await s.commit(mkdirOp(p));
      s.host.emit({ op: 'mkdir', path: p, source });
    },
    async remove(p, source: ChangeSource, by?: Provenance) {
      const s = get();
      if (p === ROOT) throw new VaultError('INVALID', m('errors:memory.rootDelete', { root: ROOT }), p);
      if (!s.view.stat(p)) throw notFound(p);
      await keepParents(s, p);
      await s.commit(rmOp(s.view, p, by ?? provenanceOf(source)));
      s.host.emit({ op: 'delete', path: p, source });
    },
    async rename(from, to, source: ChangeSource, by?: Provenance) {
      checkInside(to);
      const s = get();
      if (from === ROOT || to === ROOT) throw new VaultError('INVALID', m('errors:memory.rootRename', { root: ROOT }), from);
      if (!s.view.stat(from)) throw notFound(from);
      if (s.view.stat(to)) throw new VaultError('EXISTS', m('errors:memory.exists', { path: to }), to);
      if (to.startsWith(from + '/')) throw new VaultError('INVALID', m('errors:memory.intoItself', { path: from }), to);
      checkParents(s, to);
      await keepParents(s, from);
      await s.commit(mvOp(s.view, from, to));
      s.host.emit({ op: 'rename', path: from, newPath: to, source, ...(by ? { by } : {}) });
    },
  };
}

/** As ops.ts `importBatch`: every item in one `batch` record (all or none), its blobs in `blob` records ahead of it. */
export async function importBatch2(s: SyncSession, items: ImportItem[], opts: { overwrite: boolean; source: ChangeSource; maxFileBytes: number; maxTotalBytes: number }): Promise<number> {
  const todo: Array<{ item: ImportItem; bytes: Uint8Array }> = [];
  let total = s.view.totalSize();
  const seen = new Set<string>();
  const drop = () => todo.forEach((t) => wipe(t.bytes));
  for (const item of items) {
    checkInside(item.path);
    if (seen.has(item.path)) throw new VaultError('INVALID', m('errors:import.twice', { path: item.path }), item.path);
    seen.add(item.path);
    if (item.path === ROOT || s.view.isDir(item.path)) throw new VaultError('NOT_A_FILE', m('errors:import.isFolder', { path: item.path }), item.path);
    const bytes = utf8(item.text);
    if (bytes.length > opts.maxFileBytes) {
      throw new VaultError('LIMIT', m('errors:import.tooBig', { path: item.path, size: bytes.length, limit: opts.maxFileBytes }), item.path);
    }
    const existing = s.view.stat(item.path);
    if (existing?.kind === 'file') {
      if ((await readCurrent(s, item.path)) === item.text) {
        wipe(bytes);
        continue;
      }
      if (!opts.overwrite) throw new VaultError('EXISTS', m('errors:import.exists', { path: item.path }), item.path);
      total -= existing.size;
    }
    checkParents(s, item.path);
    total += bytes.length;
    todo.push({ item, bytes });
  }
  for (const p of seen) {
    for (const dir of ancestorsOf(p)) {
      if (seen.has(dir)) {
        drop();
        throw new VaultError('NOT_A_DIRECTORY', m('errors:import.fileAndFolder', { path: dir }), dir);
      }
    }
  }
  if (total > opts.maxTotalBytes) {
    drop();
    throw new VaultError('LIMIT', m('errors:import.vaultFull', { size: total, limit: opts.maxTotalBytes }));
  }
  if (!todo.length) return 0;
  const first = await s.nextVid();
  const created = new Set(todo.filter((t) => s.view.stat(t.item.path) === undefined).map((t) => t.item.path));
  const me = s.store.device!;
  const seq0 = Number(first.slice(first.indexOf(':') + 1));
  const puts: PutOp[] = [];
  for (const [i, { item, bytes }] of todo.entries()) {
    const sealed = sealText(s, bytes);
    wipe(bytes);
    await s.commit({ t: 'blob', b: sealed.text.b }, sealed.bytes, true);
    puts.push(putOp(s.view, item.path, sealed.text, formatVid(me, seq0 + i), { kind: 'import' }));
  }
  await s.commit({ t: 'batch', ops: puts }, undefined, true);
  for (const [i, { item }] of todo.entries()) {
    const meta = writtenMeta(s, item.path, puts[i]!.f);
    s.host.emit({ op: 'write', path: meta.path, version: meta.version, source: opts.source, created: created.has(item.path) });
  }
  return todo.length;
}

const INTERNAL_KEY = /^(?=.{1,200}$)[a-z0-9_-][a-z0-9._-]*(\/[a-z0-9_-][a-z0-9._-]*)*$/;
function checkKey(key: string): void {
  if (!INTERNAL_KEY.test(key)) throw new VaultError('INVALID', m('errors:vault.badInternalKey'), key);
}

/** The internal store of a v2 session: one multi-value register per key, concurrent values read through its merge rule (kv.ts). */
export function internalStore2(get: () => SyncSession, queue: <T>(fn: () => Promise<T>) => Promise<T>): InternalStore {
  const read = async (s: SyncSession, key: string, tries = 3): Promise<Uint8Array | undefined> => {
    const at = s.view.kv.mergeInputs(key);
    if (!at) return undefined;
    const learn = () => s.store.learnIndexes();
    if (at.heads.length === 1) return s.store.blobs.read('internal', at.heads[0]!.b, `internal:${key}`, learn);
    // Several values written at once on different computers: their merge rule reads them and their base. A base not
    // forgotten is kept by its writer; one not here yet (or gone with a forget this computer has not read yet) is no base.
    const plain = new Map<string, Uint8Array>();
    for (const { vid, b } of at.heads) plain.set(vid, await s.store.blobs.read('internal', b, `internal:${key}`, learn));
    if (at.base) {
      const bytes = await s.store.blobs.read('internal', at.base.b, `internal:${key}`, learn).catch(() => undefined);
      if (bytes) plain.set(at.base.vid, bytes);
    }
    const value = s.view.kv.get(key, (_b, vid) => plain.get(vid) ?? new Uint8Array(0));
    for (const b of plain.values()) wipe(b);
    // The heads changed while their texts were read (what the reads learnt or caught up on): read as they are now.
    // Taken as absent, a key with a value read as none (a conversation's save was dropped as "deleted meanwhile").
    const heads = at.heads.map((h) => h.vid).join();
    if (value?.kind === 'single' || (value?.kind === 'merged' && value.heads.join() !== heads)) {
      if (tries > 1) return read(s, key, tries - 1);
      // Still moving after a few reads: arriving, as a text that is not all here yet (`get` catches up once more).
      throw new VaultError('DAMAGED', m('errors:vault.blobDamagedOrArriving', { subject: `internal:${key}` }), `internal:${key}`);
    }
    return value?.kind === 'merged' ? utf8(JSON.stringify(value.value ?? null)) : undefined;
  };
  const store: InternalStore = {
    async get(key) {
      checkKey(key);
      const s = get();
      try {
        return await read(s, key);
      } catch (e) {
        // A value this computer is behind on may be gone from its writer's files (superseded there): catch up, then read again.
        if (!(e instanceof VaultError && e.code === 'DAMAGED')) throw e;
        await s.refresh();
        return read(s, key);
      }
    },
    async getJSON<T>(key: string): Promise<T | undefined> {
      const bytes = await store.get(key);
      if (!bytes) return undefined;
      try {
        return JSON.parse(fromUtf8(bytes)) as T;
      } finally {
        wipe(bytes);
      }
    },
    async put(key, value) {
      checkKey(key);
      return queue(async () => {
        const s = get();
        const { bytes, ref } = sealBlob2(s.store.o.vaultId, s.keys, 'internal', value);
        await s.commit(kputOp(s.view, key, ref), bytes);
      });
    },
    async putJSON(key, value) {
      const bytes = utf8(JSON.stringify(value));
      try {
        await store.put(key, bytes);
      } finally {
        wipe(bytes);
      }
    },
    async delete(key) {
      checkKey(key);
      return queue(async () => {
        const s = get();
        const op = kdelOp(s.view, key);
        if (op) await s.commit(op);
      });
    },
    keys: (prefix) => get().view.kv.keys(prefix),
    scheme: () => 2,
    version: (key) => get().view.kv.heads(key).join(',') || undefined,
    sweepable(key) {
      const s = get();
      const me = s.store.device;
      return s.view.kv.heads(key).every((vid) => vid.startsWith('L:') || (me !== undefined && vid.startsWith(`${me}:`)));
    },
    async device(create) {
      if (get().store.device || !create) return get().store.device;
      // This computer's first write to the vault: its id is made (and the vault upgraded) as for any change.
      return queue(async () => {
        const s = get();
        if (!s.store.device) await s.nextVid();
        return s.store.device;
      });
    },
  };
  return store;
}
