/**
 * The vault's projects: each conversation belongs to one, and each has its
 * own memory root (see scope.ts). The list is one value of the vault's
 * internal store, so every change (create, rename, delete, restore) is one
 * durable write: a crash leaves the old list or the new one, never a mix.
 *
 * A vault that never stored a list has exactly one project, the first, whose
 * memory is the vault's `/memories` as it always was: nothing is written to
 * open an existing vault.
 *
 * When several computers may write the vault (format 2, `internal.scheme()`
 * 2), each project is its own value, `projects/<id>` = `{name, created,
 * deleted?}`, so a project made, renamed or deleted on one computer never
 * undoes another's change to another project; concurrent changes of one
 * project merge by its rule (sync/merge-rules.ts `projectRule`: a live project
 * wins over a delete), and names two computers chose at once are shown with
 * ` (2)` (`displayProjects`). The list a single-writer vault stored is read
 * as every project's first value (docs/sync-design.md §3).
 */
import { randomBytes } from 'node:crypto';
import { displayProjects } from '../vault/sync/merge-rules';
import { VaultError, type VaultApi } from '../vault/types';
import { MAX_PROJECT_NAME, sameName, withSuffix } from './names';
import { MemoryScope, projectRoot, scopedVault } from './scope';
import { m } from '../i18n/message';

export { MAX_PROJECT_NAME };

const KEY = 'projects';
/** Format 2: one value per project, `projects/<id>`. */
const PER_ID = 'projects/';
/** The id of the project every vault starts with (and every conversation stored before projects belongs to). */
export const FIRST_PROJECT_ID = 'default';
export const FIRST_PROJECT_NAME = 'Default';
const ID = /^(default|[0-9a-f]{16})$/;

export interface Project {
  id: string;
  name: string;
  created: number;
}

export interface DeletedProject extends Project {
  deleted: number;
}

interface StoredList {
  projects: Project[];
  /** Deleted projects: their memories and conversations stay in the vault until restored. */
  deleted: DeletedProject[];
}

const firstProject = (): Project => ({ id: FIRST_PROJECT_ID, name: FIRST_PROJECT_NAME, created: 0 });

/** One queue per vault: every change is a read-modify-write of the one list. */
const queues = new WeakMap<VaultApi, Promise<unknown>>();

// C0 and C1 controls, DEL, line/paragraph separators, bidi controls and marks, and zero-width or otherwise invisible
// characters (the set memory paths refuse): a name holding one does not read as what it is, and "Work" with a
// zero-width space in it would pass as unique while looking exactly like "Work".
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/u;

/** A project name as stored (NFC, trimmed), or INVALID saying what is wrong with it. */
export function validateProjectName(input: string): string {
  const name = input.normalize('NFC').trim();
  if (!name) throw new VaultError('INVALID', m('errors:project.nameEmpty'));
  if (CONTROL.test(name)) throw new VaultError('INVALID', m('errors:project.nameInvisible'));
  if ([...name].length > MAX_PROJECT_NAME) throw new VaultError('INVALID', m('errors:project.nameTooLong', { count: MAX_PROJECT_NAME }));
  return name;
}


/** Create, list, rename, delete and restore projects, and open a project's memory. */
export class Projects {
  constructor(private readonly vault: VaultApi) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(this.vault) ?? Promise.resolve()).then(fn, fn);
    queues.set(this.vault, run.catch(() => undefined));
    return run;
  }

  /** True when each project is its own value (several computers may write the vault). */
  private perId(): boolean {
    return this.vault.internal.scheme?.() === 2;
  }

  /** Stores a change of one project: the whole list (one writer) or that project's own value (several). */
  private async save(list: StoredList, changed: Project | DeletedProject): Promise<void> {
    if (!this.perId()) return this.vault.internal.putJSON(KEY, list);
    const { id, ...value } = changed;
    await this.vault.internal.putJSON(PER_ID + id, value);
  }

  private async load(): Promise<StoredList> {
    const stored = await this.vault.internal.getJSON<StoredList>(KEY);
    if (this.perId()) return this.loadPerId(stored);
    if (!stored || !Array.isArray(stored.projects) || stored.projects.length === 0) return { projects: [firstProject()], deleted: stored?.deleted ?? [] };
    return { projects: stored.projects, deleted: Array.isArray(stored.deleted) ? stored.deleted : [] };
  }

  /** Format 2: the stored list (if any) as every project's first value, then each project's own value. */
  private async loadPerId(stored: StoredList | undefined): Promise<StoredList> {
    const all = new Map<string, { name: string; created: number; deleted?: number }>([[FIRST_PROJECT_ID, { name: FIRST_PROJECT_NAME, created: 0 }]]);
    for (const p of Array.isArray(stored?.projects) ? stored.projects : []) all.set(p.id, { name: p.name, created: p.created });
    for (const p of Array.isArray(stored?.deleted) ? stored.deleted : []) all.set(p.id, { name: p.name, created: p.created, deleted: p.deleted });
    for (const key of this.vault.internal.keys(PER_ID)) {
      const id = key.slice(PER_ID.length);
      const v = ID.test(id) ? await this.vault.internal.getJSON<{ name?: unknown; created?: unknown; deleted?: unknown }>(key) : undefined;
      if (!v || typeof v.name !== 'string' || typeof v.created !== 'number') continue;
      all.set(id, { name: v.name, created: v.created, ...(typeof v.deleted === 'number' && id !== FIRST_PROJECT_ID ? { deleted: v.deleted } : {}) });
    }
    const projects = displayProjects([...all].filter(([, p]) => p.deleted === undefined).map(([id, p]) => ({ id, name: p.name, created: p.created })));
    const deleted = [...all]
      .flatMap(([id, p]) => (p.deleted === undefined ? [] : [{ id, name: p.name, created: p.created, deleted: p.deleted }]))
      .sort((a, b) => a.deleted - b.deleted || (a.id < b.id ? -1 : 1));
    return { projects, deleted };
  }

  /** Every live project, the first one first, then in the order they were made. */
  async list(): Promise<Project[]> {
    return (await this.load()).projects;
  }

  /** Deleted projects, whose memories and conversations can still be brought back with `restore`. */
  async listDeleted(): Promise<DeletedProject[]> {
    return (await this.load()).deleted;
  }

  /** The project with this id, or NOT_FOUND. */
  async require(id: string): Promise<Project> {
    const p = (await this.list()).find((x) => x.id === id);
    if (!p) throw new VaultError('NOT_FOUND', m('errors:project.gonePick'));
    return p;
  }

  /** The project with this name (case-insensitive), or NOT_FOUND naming it. */
  async byName(name: string): Promise<Project> {
    const p = (await this.list()).find((x) => sameName(x.name, name.normalize('NFC').trim()));
    if (!p) throw new VaultError('NOT_FOUND', m('errors:project.noneNamed', { name }));
    return p;
  }

  /** A new project with an empty memory. */
  async create(name: string): Promise<Project> {
    const clean = validateProjectName(name);
    return this.serial(async () => {
      const list = await this.load();
      this.checkUnique(list, clean);
      const project: Project = { id: randomBytes(8).toString('hex'), name: clean, created: Date.now() };
      await this.save({ ...list, projects: [...list.projects, project] }, project);
      return project;
    });
  }

  async rename(id: string, name: string): Promise<Project> {
    const clean = validateProjectName(name);
    return this.serial(async () => {
      const list = await this.load();
      const at = list.projects.findIndex((p) => p.id === id);
      if (at < 0) throw new VaultError('NOT_FOUND', m('errors:project.gone'));
      this.checkUnique(list, clean, id);
      const renamed = { ...list.projects[at]!, name: clean };
      await this.save({ ...list, projects: list.projects.map((p, i) => (i === at ? renamed : p)) }, renamed);
      return renamed;
    });
  }

  /**
   * Takes the project off the list. Its memories and conversations are not
   * touched: they stay encrypted in the vault, out of sight, until `restore`.
   * The first project holds the vault's own memory root and cannot be deleted.
   */
  async delete(id: string): Promise<void> {
    if (id === FIRST_PROJECT_ID) throw new VaultError('INVALID', m('errors:project.firstUndeletable'));
    await this.serial(async () => {
      const list = await this.load();
      const project = list.projects.find((p) => p.id === id);
      if (!project) throw new VaultError('NOT_FOUND', m('errors:project.goneAlready'));
      const gone = { ...project, deleted: Date.now() };
      await this.save({ projects: list.projects.filter((p) => p.id !== id), deleted: [...list.deleted, gone] }, gone);
    });
  }

  /** Brings a deleted project back with its memories and conversations (renamed if its name was taken since). */
  async restore(id: string): Promise<Project> {
    return this.serial(async () => {
      const list = await this.load();
      const gone = list.deleted.find((p) => p.id === id);
      if (!gone) throw new VaultError('NOT_FOUND', m('errors:project.noDeletedId'));
      let name = gone.name;
      for (let n = 2; list.projects.some((p) => sameName(p.name, name)); n++) name = withSuffix(gone.name, ` (${n})`);
      const project: Project = { id: gone.id, name, created: gone.created };
      await this.save({ projects: [...list.projects, project], deleted: list.deleted.filter((p) => p.id !== id) }, project);
      return project;
    });
  }

  /** The memory of a live project as Claude sees it (`/memories` = the project's root). */
  async memoryScope(id: string): Promise<MemoryScope> {
    const project = await this.require(id);
    return new MemoryScope(projectRoot(project.id, project.id === FIRST_PROJECT_ID));
  }

  /** The vault as seen from a live project: pass it to the memory tool, the editor's handlers and the chat's tools. */
  async memoryVault(id: string): Promise<VaultApi> {
    return scopedVault(this.vault, await this.memoryScope(id));
  }

  private checkUnique(list: StoredList, name: string, except?: string): void {
    if (list.projects.some((p) => p.id !== except && sameName(p.name, name))) {
      throw new VaultError('EXISTS', m('errors:project.nameTaken', { name }));
    }
  }
}

/** True if `id` has the shape of a project id. */
export function isProjectId(id: string): boolean {
  return ID.test(id);
}
