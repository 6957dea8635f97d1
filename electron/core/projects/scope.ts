/**
 * A project's memory as Claude sees it: its own `/memories`, mapped onto a
 * folder of the vault's one memory namespace. The first project's root is the
 * namespace's own `/memories` (so a vault made before projects opens with its
 * memories unchanged); every other project lives under a reserved hidden
 * folder there that the first project can neither list nor reach.
 *
 * The mapping wraps the vault (`scopedVault`), so the memory tool, the chat's
 * approval previews and the editor run unchanged on a project's memory.
 */
import { MEMORY_ROOT, MemoryPathError } from '../memory/paths';
import { VaultError, type ChangeSource, type EntryMeta, type MemoryOps, type VaultApi, type VaultChange } from '../vault/types';
import { m } from '../i18n/message';

/** The folder under `/memories` that holds every project but the first. Hidden (leading dot), so listings leave it out. */
export const PROJECTS_DIR = `${MEMORY_ROOT}/.mnemo-projects`;

/** Where a project's `/memories` lives in the vault's namespace. */
export function projectRoot(projectId: string, isFirst: boolean): string {
  return isFirst ? MEMORY_ROOT : `${PROJECTS_DIR}/${projectId}`;
}

const isWithinDir = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

/** Maps Claude's paths to the vault's and back for one project root. */
export class MemoryScope {
  constructor(readonly root: string) {}

  /** True for the first project, whose root is the namespace's own `/memories`. */
  get isBase(): boolean {
    return this.root === MEMORY_ROOT;
  }

  /** The vault path for a `/memories…` path of this project; the reserved folder is out of the first project's reach. */
  toVault(path: string): string {
    if (this.isBase) {
      if (isWithinDir(path, PROJECTS_DIR)) {
        throw new MemoryPathError(`The name ${PROJECTS_DIR.slice(MEMORY_ROOT.length + 1)} directly under ${MEMORY_ROOT} is reserved by Mnemo; choose another name.`, m('errors:path.reserved', { name: PROJECTS_DIR.slice(MEMORY_ROOT.length + 1), root: MEMORY_ROOT }));
      }
      return path;
    }
    return path === MEMORY_ROOT ? this.root : this.root + path.slice(MEMORY_ROOT.length);
  }

  /** The `/memories…` path of a vault path, or undefined if it is not this project's. */
  fromVault(path: string): string | undefined {
    if (this.isBase) return isWithinDir(path, PROJECTS_DIR) ? undefined : path;
    if (!isWithinDir(path, this.root)) return undefined;
    return MEMORY_ROOT + path.slice(this.root.length);
  }

  /** A vault error with its subject and message in this project's terms, so no internal folder reaches Claude or the UI. */
  error(e: unknown): unknown {
    if (this.isBase || !(e instanceof VaultError)) return e;
    const subject = e.subject === undefined ? undefined : (this.fromVault(e.subject) ?? MEMORY_ROOT);
    return e.with({ subject, reword: (text) => text.split(this.root).join(MEMORY_ROOT) });
  }

  entry<T extends EntryMeta>(e: T): T {
    return { ...e, path: this.fromVault(e.path) ?? MEMORY_ROOT };
  }

  /** A vault change in this project's terms; undefined for changes to other projects. */
  change(c: VaultChange): VaultChange | undefined {
    if (c.op === 'lock') return c;
    const path = this.fromVault(c.path);
    if (path === undefined) return undefined;
    if (c.op !== 'rename') return { ...c, path };
    const newPath = this.fromVault(c.newPath);
    return newPath === undefined ? undefined : { ...c, path, newPath };
  }
}

/** `ops` seen through `scope`: every path in and out mapped, everything outside the project invisible. */
export function scopeOps(ops: MemoryOps, scope: MemoryScope): MemoryOps {
  const wrap = <A extends unknown[], R>(fn: (...a: A) => R) => (...a: A): R => {
    try {
      const r = fn(...a);
      return (r instanceof Promise ? r.catch((e: unknown) => Promise.reject(scope.error(e))) : r) as R;
    } catch (e) {
      throw scope.error(e);
    }
  };
  const v = (p: string) => scope.toVault(p);
  return {
    stat: wrap((p: string) => {
      const meta = ops.stat(v(p));
      // The first project's root is the namespace root; another's may not exist yet, and is an empty folder then.
      return meta ? scope.entry(meta) : undefined;
    }),
    kind: wrap((p: string) => ops.kind(v(p))),
    list: wrap((dir: string, depth: number) => {
      // A project's root exists once something is written in it; before that it is an empty folder.
      if (!scope.isBase && dir === MEMORY_ROOT && !ops.stat(scope.root)) return [];
      // The first project's root holds the other projects' folder: step around it rather than list and drop it,
      // so listing the first project costs what it holds, not what every project holds.
      if (scope.isBase && dir === MEMORY_ROOT) return listAround(ops, depth);
      const entries = ops.list(v(dir), depth);
      return entries.filter((e) => scope.fromVault(e.path) !== undefined).map((e) => scope.entry(e));
    }),
    readFile: wrap((p: string) => ops.readFile(v(p))),
    writeFile: wrap(async (p: string, text: string, o: Parameters<MemoryOps['writeFile']>[2]) => {
      // A project's root may not exist yet, and the vault would then take a file there: the project's
      // /memories would be a file, which nothing in the project could list, write under, rename or delete.
      if (p === MEMORY_ROOT) throw new VaultError('NOT_A_FILE', m('errors:memory.rootIsFolder', { root: MEMORY_ROOT }), MEMORY_ROOT);
      return scope.entry(await ops.writeFile(v(p), text, o));
    }),
    mkdir: wrap((p: string, source: Parameters<MemoryOps['mkdir']>[1]) => ops.mkdir(v(p), source)),
    remove: wrap((p: string, source: Parameters<MemoryOps['remove']>[1], by?: Parameters<MemoryOps['remove']>[2]) => {
      if (!scope.isBase && p === MEMORY_ROOT) throw new VaultError('INVALID', m('errors:memory.rootDelete', { root: MEMORY_ROOT }), MEMORY_ROOT);
      return ops.remove(v(p), source, by);
    }),
    rename: wrap((a: string, b: string, source: Parameters<MemoryOps['rename']>[2], by?: Parameters<MemoryOps['rename']>[3]) => {
      if (!scope.isBase && (a === MEMORY_ROOT || b === MEMORY_ROOT)) throw new VaultError('INVALID', m('errors:memory.rootRename', { root: MEMORY_ROOT }), a);
      return ops.rename(v(a), v(b), source, by);
    }),
    // The size limit is the vault's, shared by every project.
    totalSize: () => ops.totalSize(),
  };
}

/** Entries below `/memories` down to `depth`, leaving out the other projects' folder and everything in it. */
function listAround(ops: MemoryOps, depth: number): EntryMeta[] {
  const top = ops.list(MEMORY_ROOT, 1).filter((e) => e.path !== PROJECTS_DIR);
  if (depth <= 1) return top;
  const all = top.flatMap((e) => (e.kind === 'dir' ? [e, ...ops.list(e.path, depth - 1)] : [e]));
  // The same order as MemoryOps.list: by path, plain string comparison.
  return all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The vault as one project sees it: the memory namespace, its history and its
 * change events mapped to the project's root; everything else (keys, internal
 * store, lock) is the vault itself. Pass it wherever a VaultApi serves memory.
 */
export function scopedVault(vault: VaultApi, scope: MemoryScope): VaultApi {
  // The first project is wrapped too: the reserved folder must be out of its reach.
  const memory = scopeOps(vault.memory, scope);
  const mapped = (p: string) => scope.toVault(p);
  const overrides: Partial<VaultApi> = {
    memory,
    exclusive: (fn) => vault.exclusive((ops) => fn(scopeOps(ops, scope))),
    history: (p) => {
      try {
        return vault.history(mapped(p));
      } catch (e) {
        throw scope.error(e);
      }
    },
    versions: (p) => {
      try {
        return vault.versions(mapped(p));
      } catch (e) {
        throw scope.error(e);
      }
    },
    readVersion: (p, version) => vault.readVersion(mapped(p), version).catch((e: unknown) => Promise.reject(scope.error(e))),
    restore: async (p, version, source, limits) => {
      try {
        return scope.entry(await vault.restore(mapped(p), version, source, limits));
      } catch (e) {
        throw scope.error(e);
      }
    },
    // In the project's terms: another project's conflicts (and the reserved folder's paths) stay out of reach.
    conflicts: () =>
      vault.conflicts().flatMap((c) => {
        const path = scope.fromVault(c.path);
        return path === undefined ? [] : [{ ...c, path }];
      }),
    onChange: (listener) =>
      vault.onChange((c) => {
        const mine = scope.change(c);
        if (mine) listener(mine);
      }),
  };
  return new Proxy(vault, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(overrides, prop)) return overrides[prop as keyof VaultApi];
      const value: unknown = Reflect.get(target, prop, target);
      // Methods run on the real vault (its private fields are not reachable through a proxy).
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Which project a vault memory path belongs to, and the path as that project sees it. */
export function locateVaultPath(path: string): { project: string | undefined; path: string } {
  if (!isWithinDir(path, PROJECTS_DIR) || path === PROJECTS_DIR) return { project: undefined, path };
  const id = path.slice(PROJECTS_DIR.length + 1).split('/')[0]!;
  return { project: id, path: new MemoryScope(`${PROJECTS_DIR}/${id}`).fromVault(path) ?? MEMORY_ROOT };
}

/** A memory change as a project sees it: paths are that project's `/memories…`; `project` is absent for the first project. */
export interface ProjectChange {
  op: 'write' | 'mkdir' | 'delete' | 'rename';
  path: string;
  newPath?: string;
  version?: number;
  source: ChangeSource;
  project?: string;
}

/**
 * A vault change in projects' terms. A move from one project to another is,
 * for each of them, a delete and a new file, not a rename within its memory.
 */
export function projectChanges(c: Exclude<VaultChange, { op: 'lock' }>): ProjectChange[] {
  const at = locateVaultPath(c.path);
  const tag = (project: string | undefined) => (project ? { project } : {});
  if (c.op === 'rename') {
    const to = locateVaultPath(c.newPath);
    if (to.project === at.project) return [{ op: 'rename', path: at.path, newPath: to.path, source: c.source, ...tag(at.project) }];
    return [
      { op: 'delete', path: at.path, source: c.source, ...tag(at.project) },
      { op: 'write', path: to.path, source: c.source, ...tag(to.project) },
    ];
  }
  return [{ op: c.op, path: at.path, source: c.source, ...tag(at.project), ...(c.op === 'write' ? { version: c.version } : {}) }];
}
