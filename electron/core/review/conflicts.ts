/**
 * Conflicts in the review inbox (format 2, docs/sync-design.md §2.4, §12.7): a memory two computers changed at once
 * (one version won on every computer, the other was kept as a version) and a delete that met an edit on another
 * computer (the edit won). Each is listed until the user marks it reviewed or saves over it (vault/sync/conflicts2.ts).
 *
 * A mark stores the conflict's id in this computer's own review value (`conflicts`, beside `files`), so marks made on
 * two computers at once are both kept, and a conflict marked on one is gone on the other once the mark has arrived.
 */
import type { MemoryScope } from '../projects/scope';
import type { DeviceEntry } from '../vault/devices';
import type { ConflictInfo } from '../vault/sync/conflicts2';
import type { TrashEntry } from '../vault/types';
import type { ReviewEntry } from './rules';

/** The vault calls conflicts need; a vault without them (a test double, an older view) lists none. */
export interface ConflictSource {
  conflicts?: () => ConflictInfo[];
  devices?: () => Promise<DeviceEntry[]>;
}

/** The acknowledged conflict ids of several computers' values, as one set (a mark is never taken back). */
export function mergeAcks(values: ReadonlyArray<unknown>): Set<string> {
  const out = new Set<string>();
  for (const v of values) if (Array.isArray(v)) for (const id of v) if (typeof id === 'string') out.add(id);
  return out;
}

/** The vault's conflicts in `scope`, by the project's paths; those outside it are left out. */
export function conflictsIn(vault: ConflictSource, scope: MemoryScope): Array<ConflictInfo & { vaultPath: string }> {
  return (vault.conflicts?.() ?? []).flatMap((c) => {
    const path = scope.fromVault(c.path);
    return path === undefined ? [] : [{ ...c, path, vaultPath: c.path }];
  });
}

/** Computer names by device id, as the device list shows them (the user's name for it, else its own, else its id). */
export async function computerNames(vault: ConflictSource): Promise<Map<string, string>> {
  return new Map((await vault.devices?.())?.map((d) => [d.id, d.name || d.id]) ?? []);
}

/** The review entries of `conflicts` (in a project's paths), by path, each naming its computers by `names`. */
export function conflictEntries(conflicts: ConflictInfo[], names: Map<string, string>): ReviewEntry[] {
  return [...conflicts]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => ({
      path: c.path,
      kind: 'conflict' as const,
      version: c.version,
      by: c.by ?? { kind: 'system' as const },
      conflict: { what: c.what, id: c.id, versions: c.others, ...(c.base !== undefined ? { base: c.base } : {}), computers: c.devices.map((d) => names.get(d) ?? d) },
    }));
}

/**
 * The acknowledgements worth keeping: those of conflicts the vault still lists, and of edit conflicts whose versions
 * are in the trash (a memory deleted after it was reviewed, which a restore would list again). The rest can never be
 * listed again: a delete once answered stays answered, and versions let go of do not come back.
 */
export function keptAcks(acks: Set<string>, vault: ConflictSource, trash: TrashEntry[]): string[] {
  const listed = new Set((vault.conflicts?.() ?? []).map((c) => c.id));
  const trashed = new Set(trash.flatMap((t) => t.versions.flatMap((v) => (v.vid ? [v.vid] : []))));
  const keep = (id: string) => listed.has(id) || (id.startsWith('e:') && id.slice(2).split(',').some((v) => trashed.has(v)));
  return [...acks].filter(keep).sort();
}
