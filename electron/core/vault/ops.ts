/**
 * The memory namespace and the internal store as seen from inside the vault's
 * mutation queue: checks, then one journal record, then the in-memory State.
 */
import { formatFileSize } from '../memory/format';
import { sizeExcess, type MemoryLimits } from '../memory/limits';
import { m, type LocalMessage } from '../i18n/message';
import { fromUtf8, utf8, wipe } from './crypto';
import { parentOf, ROOT, type Op, type State } from './state';
import type { Store } from './store';
import { VaultError, type ChangeSource, type EntryMeta, type FileMeta, type InternalStore, type MemoryOps, type Provenance, type VaultChange, type WriteOptions } from './types';

/** What the ops need from an unlocked vault. */
export interface Unlocked {
  store: Store;
  state: State;
  /** Durably records `op` (with its blob) and applies it to the State. */
  commit(op: Op, blob?: Parameters<Store['append']>[2]): Promise<void>;
  /** Durably records several writes as one change (all or none) and applies them. */
  commitBatch(items: Parameters<Store['appendBatch']>[1]): Promise<void>;
  emit(change: VaultChange): void;
}

/** The provenance a change records when its caller names only a source. */
export function provenanceOf(source: ChangeSource): Provenance {
  return { kind: source };
}

const notFound = (p: string) => new VaultError('NOT_FOUND', m('errors:memory.notFound', { path: p }), p);

/**
 * Why a write of `newBytes` to `path` would break a size limit, said to the user (the memory tool tells
 * Claude in its own words: memory/limits.ts), or undefined when it fits. `copy`: the write is a copy to
 * another project.
 */
export function sizeRefusal(path: string, newBytes: number, oldBytes: number, totalBytes: number, limits: Pick<MemoryLimits, 'maxFileBytes' | 'maxVaultBytes'>, copy = false): LocalMessage | undefined {
  const excess = sizeExcess(newBytes, oldBytes, totalBytes, limits);
  if (!excess) return undefined;
  const sizes = { size: formatFileSize(excess.size), limit: formatFileSize(excess.limit) };
  if (excess.kind === 'file') return copy ? m('errors:memory.copyTooBig', { path, ...sizes }) : m('errors:memory.tooBig', { path, ...sizes });
  return copy ? m('errors:memory.copyVaultFull', sizes) : m('errors:memory.vaultFull', sizes);
}

function checkParents(st: State, p: string): void {
  for (let dir = parentOf(p); dir.length >= ROOT.length; dir = parentOf(dir)) {
    if (st.files.has(dir)) throw new VaultError('NOT_A_DIRECTORY', m('errors:memory.parentIsFile', { path: dir }), dir);
    if (st.dirs.has(dir)) return;
  }
}

function checkInside(p: string): void {
  if (p !== ROOT && !p.startsWith(ROOT + '/')) throw new VaultError('INVALID', m('errors:memory.outside', { path: p, root: ROOT }), p);
}

/** MemoryOps bound to `get()`, which throws LOCKED when the vault is locked. */
export function memoryOps(get: () => Unlocked): MemoryOps {
  return {
    stat: (p) => get().state.stat(p),
    kind: (p) => get().state.stat(p)?.kind,
    list: (dir, depth) => {
      const { state } = get();
      if (!state.dirs.has(dir)) throw state.files.has(dir) ? new VaultError('NOT_A_DIRECTORY', m('errors:memory.isFile', { path: dir }), dir) : notFound(dir);
      return state.list(dir, depth);
    },
    totalSize: () => get().state.totalSize(),
    async readFile(p) {
      const { state, store } = get();
      const rec = state.files.get(p);
      if (!rec) throw state.dirs.has(p) ? new VaultError('NOT_A_FILE', m('errors:memory.isFolder', { path: p }), p) : notFound(p);
      const bytes = await store.readBlob('blobs', rec.b, p);
      try {
        return fromUtf8(bytes);
      } finally {
        wipe(bytes);
      }
    },
    async writeFile(p, text, opts: WriteOptions): Promise<FileMeta> {
      checkInside(p);
      const u = get();
      const { state, store } = u;
      if (p === ROOT || state.dirs.has(p)) throw new VaultError('NOT_A_FILE', m('errors:memory.isFolder', { path: p }), p);
      const existing = state.files.get(p);
      if (opts.mode === 'create' && existing) throw new VaultError('EXISTS', m('errors:memory.exists', { path: p }), p);
      if (opts.mode === 'update' && !existing) throw notFound(p);
      if (opts.expectedVersion !== undefined && (existing?.v ?? 0) !== opts.expectedVersion) {
        throw new VaultError('CONFLICT', existing ? m('errors:memory.changedSince', { path: p, version: existing.v }) : m('errors:memory.deletedSince', { path: p }), p);
      }
      checkParents(state, p);
      const plain = utf8(text);
      const problem = opts.limits && sizeRefusal(p, plain.length, existing?.s ?? 0, state.totalSize(), opts.limits);
      if (problem) {
        wipe(plain);
        throw new VaultError('LIMIT', problem, p);
      }
      const blob = store.sealBlob('blobs', plain);
      const size = plain.length;
      wipe(plain);
      const version = state.nextVersion(p);
      await u.commit({ t: 'write', p, b: blob.ref, s: size, v: version, at: Date.now(), w: opts.by ?? provenanceOf(opts.source) }, blob);
      u.emit({ op: 'write', path: p, version, source: opts.source, created: !existing });
      return state.stat(p) as FileMeta;
    },
    async mkdir(p, source: ChangeSource) {
      checkInside(p);
      const u = get();
      if (u.state.files.has(p)) throw new VaultError('NOT_A_DIRECTORY', m('errors:memory.isFile', { path: p }), p);
      if (u.state.dirs.has(p)) return;
      checkParents(u.state, p + '/x');
      await u.commit({ t: 'mkdir', p, at: Date.now() });
      u.emit({ op: 'mkdir', path: p, source });
    },
    async remove(p, source: ChangeSource, by?: Provenance) {
      const u = get();
      if (p === ROOT) throw new VaultError('INVALID', m('errors:memory.rootDelete', { root: ROOT }), p);
      if (!u.state.stat(p)) throw notFound(p);
      await u.commit({ t: 'rm', p, at: Date.now(), w: by ?? provenanceOf(source) });
      u.emit({ op: 'delete', path: p, source });
    },
    async rename(from, to, source: ChangeSource, by?: Provenance) {
      checkInside(to);
      const u = get();
      if (from === ROOT || to === ROOT) throw new VaultError('INVALID', m('errors:memory.rootRename', { root: ROOT }), from);
      if (!u.state.stat(from)) throw notFound(from);
      if (u.state.stat(to)) throw new VaultError('EXISTS', m('errors:memory.exists', { path: to }), to);
      if (to.startsWith(from + '/')) throw new VaultError('INVALID', m('errors:memory.intoItself', { path: from }), to);
      checkParents(u.state, to);
      await u.commit({ t: 'mv', p: from, np: to, at: Date.now() });
      u.emit({ op: 'rename', path: from, newPath: to, source, ...(by ? { by } : {}) });
    },
  };
}

/** One file of an import: where it goes and its text. */
export interface ImportItem {
  path: string;
  text: string;
}

/**
 * Writes every item as one change: all of them or, after a crash or a refusal,
 * none. Items identical to the memory already there (same path, same text) are
 * skipped, so re-running an interrupted or finished import succeeds. Refuses
 * (INVALID / EXISTS / LIMIT, naming the file, nothing written) when a path is
 * outside the memory folder or a folder, when a different memory is there and
 * `overwrite` is off, or when a file or the total would pass `limits`.
 * Returns how many files were written.
 */
export async function importBatch(u: Unlocked, items: ImportItem[], opts: { overwrite: boolean; source: ChangeSource; maxFileBytes: number; maxTotalBytes: number }): Promise<number> {
  const { state, store } = u;
  const todo: Array<{ item: ImportItem; bytes: Uint8Array }> = [];
  let total = state.totalSize();
  const seen = new Set<string>();
  for (const item of items) {
    checkInside(item.path);
    if (seen.has(item.path)) throw new VaultError('INVALID', m('errors:import.twice', { path: item.path }), item.path);
    seen.add(item.path);
    if (item.path === ROOT || state.dirs.has(item.path)) throw new VaultError('NOT_A_FILE', m('errors:import.isFolder', { path: item.path }), item.path);
    const bytes = utf8(item.text);
    if (bytes.length > opts.maxFileBytes) {
      throw new VaultError('LIMIT', m('errors:import.tooBig', { path: item.path, size: bytes.length, limit: opts.maxFileBytes }), item.path);
    }
    const existing = state.files.get(item.path);
    if (existing) {
      const current = await store.readBlob('blobs', existing.b, item.path);
      const same = current.length === bytes.length && current.every((b, i) => b === bytes[i]);
      wipe(current);
      if (same) {
        wipe(bytes);
        continue;
      }
      if (!opts.overwrite) throw new VaultError('EXISTS', m('errors:import.exists', { path: item.path }), item.path);
      total -= existing.s;
    }
    checkParents(state, item.path);
    total += bytes.length;
    todo.push({ item, bytes });
  }
  // A file in the batch may not sit under another file of the same batch (names
  // that differ only in Unicode form normalise to one path): state would hold a
  // file and a folder at one path, hiding the memories under it.
  for (const p of seen) {
    for (let dir = parentOf(p); dir.length > ROOT.length; dir = parentOf(dir)) {
      if (seen.has(dir)) {
        for (const t of todo) wipe(t.bytes);
        throw new VaultError('NOT_A_DIRECTORY', m('errors:import.fileAndFolder', { path: dir }), dir);
      }
    }
  }
  if (total > opts.maxTotalBytes) {
    for (const t of todo) wipe(t.bytes);
    throw new VaultError('LIMIT', m('errors:import.vaultFull', { size: total, limit: opts.maxTotalBytes }));
  }
  if (!todo.length) return 0;
  const at = Date.now();
  const created = new Set(todo.filter((t) => !state.files.has(t.item.path)).map((t) => t.item.path));
  const batch = todo.map(({ item, bytes }) => {
    const blob = store.sealBlob('blobs', bytes);
    const size = bytes.length;
    wipe(bytes);
    return { op: { t: 'write' as const, p: item.path, b: blob.ref, s: size, v: state.nextVersion(item.path), at, w: { kind: 'import' as const } }, blob };
  });
  await u.commitBatch(batch);
  for (const { op } of batch) u.emit({ op: 'write', path: op.p, version: op.v, source: opts.source, created: created.has(op.p) });
  return batch.length;
}

const INTERNAL_KEY = /^(?=.{1,200}$)[a-z0-9_-][a-z0-9._-]*(\/[a-z0-9_-][a-z0-9._-]*)*$/;
function checkKey(key: string): void {
  if (!INTERNAL_KEY.test(key)) throw new VaultError('INVALID', m('errors:vault.badInternalKey'), key);
}

/** The internal namespace (settings, API key, conversations): same vault, separate key, unreachable by the memory tool. */
export function internalStore(get: () => Unlocked, queue: <T>(fn: () => Promise<T>) => Promise<T>): InternalStore {
  const store: InternalStore = {
    async get(key) {
      checkKey(key);
      const u = get();
      const ref = u.state.internal.get(key);
      return ref ? u.store.readBlob('internal', ref, `internal:${key}`) : undefined;
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
        const u = get();
        const blob = u.store.sealBlob('internal', value);
        await u.commit({ t: 'iput', k: key, b: blob.ref }, blob);
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
        const u = get();
        if (u.state.internal.has(key)) await u.commit({ t: 'idel', k: key });
      });
    },
    keys: (prefix) => [...get().state.internal.keys()].filter((k) => k.startsWith(prefix)).sort(),
  };
  return store;
}

/** Lists each memory path whose current or historical blob fails to read. */
export async function checkBlobs(u: Unlocked): Promise<string[]> {
  const problems: string[] = [];
  const probe = async (kind: 'blobs' | 'internal', ref: Parameters<Store['readBlob']>[1], subject: string) => {
    try {
      wipe(await u.store.readBlob(kind, ref, subject));
    } catch {
      problems.push(`${subject}: content is damaged or missing (segments/${ref.seg})`);
    }
  };
  for (const [p, f] of u.state.files) await probe('blobs', f.b, p);
  for (const [p, h] of u.state.hist) for (const e of h) await probe('blobs', e.b, `${p} (version ${e.v})`);
  for (const [k, ref] of u.state.internal) await probe('internal', ref, `internal:${k}`);
  return problems;
}

export type { EntryMeta };
