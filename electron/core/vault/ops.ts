/**
 * The memory namespace and the internal store as seen from inside the vault's
 * mutation queue: checks, then one journal record, then the in-memory State.
 */
import { fromUtf8, utf8, wipe } from './crypto';
import { parentOf, ROOT, type Op, type State } from './state';
import type { Store } from './store';
import { VaultError, type ChangeSource, type EntryMeta, type FileMeta, type InternalStore, type MemoryOps, type VaultChange, type WriteOptions } from './types';

/** What the ops need from an unlocked vault. */
export interface Unlocked {
  store: Store;
  state: State;
  /** Durably records `op` (with its blob) and applies it to the State. */
  commit(op: Op, blob?: Parameters<Store['append']>[2]): Promise<void>;
  emit(change: VaultChange): void;
}

const notFound = (p: string) => new VaultError('NOT_FOUND', `${p} does not exist.`, p);

function checkParents(st: State, p: string): void {
  for (let dir = parentOf(p); dir.length >= ROOT.length; dir = parentOf(dir)) {
    if (st.files.has(dir)) throw new VaultError('NOT_A_DIRECTORY', `${dir} is a file, not a directory.`, dir);
    if (st.dirs.has(dir)) return;
  }
}

function checkInside(p: string): void {
  if (p !== ROOT && !p.startsWith(ROOT + '/')) throw new VaultError('INVALID', `${p} is outside ${ROOT}.`, p);
}

/** MemoryOps bound to `get()`, which throws LOCKED when the vault is locked. */
export function memoryOps(get: () => Unlocked): MemoryOps {
  return {
    stat: (p) => get().state.stat(p),
    list: (dir, depth) => {
      const { state } = get();
      if (!state.dirs.has(dir)) throw state.files.has(dir) ? new VaultError('NOT_A_DIRECTORY', `${dir} is a file.`, dir) : notFound(dir);
      return state.list(dir, depth);
    },
    totalSize: () => get().state.totalSize(),
    async readFile(p) {
      const { state, store } = get();
      const rec = state.files.get(p);
      if (!rec) throw state.dirs.has(p) ? new VaultError('NOT_A_FILE', `${p} is a directory.`, p) : notFound(p);
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
      if (p === ROOT || state.dirs.has(p)) throw new VaultError('NOT_A_FILE', `${p} is a directory.`, p);
      const existing = state.files.get(p);
      if (opts.mode === 'create' && existing) throw new VaultError('EXISTS', `${p} already exists.`, p);
      if (opts.mode === 'update' && !existing) throw notFound(p);
      if (opts.expectedVersion !== undefined && (existing?.v ?? 0) !== opts.expectedVersion) {
        throw new VaultError('CONFLICT', `${p} changed since it was opened (now version ${existing?.v ?? 'deleted'}).`, p);
      }
      checkParents(state, p);
      const plain = utf8(text);
      const blob = store.sealBlob('blobs', plain);
      const size = plain.length;
      wipe(plain);
      const version = state.nextVersion(p);
      await u.commit({ t: 'write', p, b: blob.ref, s: size, v: version, at: Date.now() }, blob);
      u.emit({ op: 'write', path: p, version, source: opts.source, created: !existing });
      return state.stat(p) as FileMeta;
    },
    async mkdir(p, source: ChangeSource) {
      checkInside(p);
      const u = get();
      if (u.state.files.has(p)) throw new VaultError('NOT_A_DIRECTORY', `${p} is a file.`, p);
      if (u.state.dirs.has(p)) return;
      checkParents(u.state, p + '/x');
      await u.commit({ t: 'mkdir', p, at: Date.now() });
      u.emit({ op: 'mkdir', path: p, source });
    },
    async remove(p, source: ChangeSource) {
      const u = get();
      if (p === ROOT) throw new VaultError('INVALID', `${ROOT} itself cannot be deleted.`, p);
      if (!u.state.stat(p)) throw notFound(p);
      await u.commit({ t: 'rm', p, at: Date.now() });
      u.emit({ op: 'delete', path: p, source });
    },
    async rename(from, to, source: ChangeSource) {
      checkInside(to);
      const u = get();
      if (from === ROOT || to === ROOT) throw new VaultError('INVALID', `${ROOT} itself cannot be renamed.`, from);
      if (!u.state.stat(from)) throw notFound(from);
      if (u.state.stat(to)) throw new VaultError('EXISTS', `${to} already exists.`, to);
      if (to.startsWith(from + '/')) throw new VaultError('INVALID', `${from} cannot be moved inside itself.`, to);
      checkParents(u.state, to);
      await u.commit({ t: 'mv', p: from, np: to, at: Date.now() });
      u.emit({ op: 'rename', path: from, newPath: to, source });
    },
  };
}

const INTERNAL_KEY = /^(?=.{1,200}$)[a-z0-9_-][a-z0-9._-]*(\/[a-z0-9_-][a-z0-9._-]*)*$/;
function checkKey(key: string): void {
  if (!INTERNAL_KEY.test(key)) throw new VaultError('INVALID', 'Invalid internal key.', key);
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
