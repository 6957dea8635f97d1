/**
 * A vault made before projects existed may hold a memory of its own at
 * `/memories/.mnemo-projects`, the folder projects now live in: a file there
 * breaks every project but the first, and the first cannot reach it (the name
 * is reserved). On open it is moved aside to `/memories/mnemo-projects (moved)`
 * — each move one durable vault change — and the caller tells the user.
 */
import { MAX_DEPTH, MEMORY_ROOT, MemoryPathError, validateMovedPaths } from '../memory/paths';
import type { VaultApi } from '../vault/types';
import { m, type LocalMessage } from '../i18n/message';
import { PROJECTS_DIR } from './scope';
import { Projects } from './store';

/** Where a pre-projects memory at PROJECTS_DIR is moved. */
export const MOVED_ASIDE = `${MEMORY_ROOT}/mnemo-projects (moved)`;

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** `path`, or `path (2)`, `path (3)`… whichever does not exist yet. */
function freePath(vault: VaultApi, path: string): string {
  let p = path;
  for (let n = 2; vault.memory.stat(p); n++) p = `${path} (${n})`;
  return p;
}

/**
 * Where `stray` can go: below `moved`, or — when a path inside it would grow
 * past the path limits there (the moved name is longer) — straight under
 * /memories, which is shorter than where it is now. Undefined if neither fits.
 */
function targetFor(vault: VaultApi, stray: string, moved: string): string | undefined {
  const inside = [stray, ...(vault.memory.stat(stray)?.kind === 'dir' ? vault.memory.list(stray, MAX_DEPTH + 1).map((e) => e.path) : [])];
  for (const to of [freePath(vault, `${moved}/${base(stray)}`), freePath(vault, `${MEMORY_ROOT}/${base(stray)}`)]) {
    try {
      validateMovedPaths(stray, to, inside);
      return to;
    } catch (e) {
      if (!(e instanceof MemoryPathError)) throw e;
    }
  }
  return undefined;
}

/**
 * Moves whatever at PROJECTS_DIR no project owns (a file there, or entries
 * not named by a live or deleted project's id) to MOVED_ASIDE. Returns a
 * notice for the user (English in `text`), or undefined when there was nothing to move. The vault
 * must be unlocked and writable.
 */
export async function moveAsidePreProjectsMemory(vault: VaultApi): Promise<LocalMessage | undefined> {
  const meta = vault.memory.stat(PROJECTS_DIR);
  if (!meta) return undefined;
  let moved: string;
  if (meta.kind === 'file') {
    moved = freePath(vault, MOVED_ASIDE);
    await vault.memory.rename(PROJECTS_DIR, moved, 'system');
  } else {
    const projects = new Projects(vault);
    const owned = new Set([...(await projects.list()), ...(await projects.listDeleted())].map((p) => p.id));
    const strays = vault.memory.list(PROJECTS_DIR, 1).filter((e) => !owned.has(base(e.path)));
    if (strays.length === 0) return undefined;
    const target = vault.memory.stat(MOVED_ASIDE);
    moved = target?.kind === 'dir' ? MOVED_ASIDE : freePath(vault, MOVED_ASIDE);
    const elsewhere: string[] = [];
    const stuck: string[] = [];
    for (const e of strays) {
      const to = targetFor(vault, e.path, moved);
      if (to === undefined) {
        stuck.push(e.path);
        continue;
      }
      if (!to.startsWith(`${moved}/`)) elsewhere.push(to);
      else if (!vault.memory.stat(moved)) await vault.memory.mkdir(moved, 'system');
      await vault.memory.rename(e.path, to, 'system');
    }
    const places = [...(vault.memory.stat(moved) ? [moved] : []), ...elsewhere];
    const from = PROJECTS_DIR;
    const left = stuck.join(', ');
    if (places.length === 0) return stuck.length ? m('errors:notice.straysStayStuck', { from, stuck: left }) : m('errors:notice.straysStay', { from });
    const to = places.join(', ');
    return stuck.length ? m('errors:notice.straysMovedStuck', { from, to, stuck: left }) : m('errors:notice.straysMoved', { from, to });
  }
  return m('errors:notice.fileMoved', { from: PROJECTS_DIR, to: moved });
}
