/**
 * The memory tree's row model, kept free of React and the DOM so it can be
 * tested as plain functions and stays cheap at 10,000+ entries: the children
 * map is built (and each folder sorted) once per list, and the visible rows
 * are one walk over the open folders only.
 */
import type { Entry } from '../../../electron/shared/ipc-values';

export const ROOT = '/memories';
export const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/'));
export const nameOf = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** One line of the tree as the ARIA tree pattern describes it. */
export interface Row {
  entry: Entry;
  name: string;
  level: number;
  posinset: number;
  setsize: number;
}

/** A list indexed once: each folder's children sorted by name, and every entry by path. */
export interface TreeIndex {
  children: ReadonlyMap<string, readonly Entry[]>;
  byPath: ReadonlyMap<string, Entry>;
}

/** Groups entries under their parent folder, each group sorted by name (code-unit order, as before). O(n log n). */
export function indexEntries(entries: readonly Entry[]): TreeIndex {
  const groups = new Map<string, Array<{ entry: Entry; name: string }>>();
  const byPath = new Map<string, Entry>();
  for (const entry of entries) {
    byPath.set(entry.path, entry);
    const dir = parentOf(entry.path);
    let list = groups.get(dir);
    if (!list) groups.set(dir, (list = []));
    list.push({ entry, name: nameOf(entry.path) });
  }
  const children = new Map<string, Entry[]>();
  for (const [dir, list] of groups) {
    // Names computed once per entry, not twice per comparison.
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    children.set(
      dir,
      list.map((x) => x.entry),
    );
  }
  return { children, byPath };
}

/** The rows a person sees: each open folder's children under it, none below a closed one. Costs the visible rows only. */
export function visibleRows(index: TreeIndex, expanded: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  const walk = (dir: string, level: number) => {
    const kids = index.children.get(dir);
    if (!kids) return;
    for (let i = 0; i < kids.length; i++) {
      const entry = kids[i]!;
      rows.push({ entry, name: nameOf(entry.path), level, posinset: i + 1, setsize: kids.length });
      if (entry.kind === 'dir' && expanded.has(entry.path)) walk(entry.path, level + 1);
    }
  };
  walk(ROOT, 1);
  return rows;
}

/** The folders above `path` inside /memories, outermost first (not /memories itself, not `path`). */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let dir = parentOf(path); dir.length > ROOT.length && dir.startsWith(`${ROOT}/`); dir = parentOf(dir)) out.push(dir);
  return out.reverse();
}

/**
 * `expanded` with the path to `path` open: its ancestors, and `path` itself
 * when it is a folder (an opened folder shows what it holds). The same set when
 * nothing changes, so React skips the render.
 */
export function expandedFor(expanded: ReadonlySet<string>, path: string, isDir: boolean): ReadonlySet<string> {
  const want = isDir ? [...ancestorsOf(path), path] : ancestorsOf(path);
  if (want.every((p) => expanded.has(p))) return expanded;
  const next = new Set(expanded);
  for (const p of want) next.add(p);
  return next;
}

/** How long a pause ends a type-ahead word (ms): the ARIA pattern's usual half second. */
export const TYPE_AHEAD_RESET_MS = 500;

export interface TypeAhead {
  text: string;
  at: number;
}

/** The type-ahead word after `key` is typed at `now`: a fresh word after a pause, else the word so far plus the key. */
export function typeAheadAfter(before: TypeAhead | undefined, key: string, now: number): TypeAhead {
  const fresh = !before || now - before.at > TYPE_AHEAD_RESET_MS;
  return { text: (fresh ? '' : before.text) + key, at: now };
}

/**
 * The row type-ahead moves to for `word`, typed while row `from` has focus, or
 * undefined when no name starts with it. A single letter looks from the row
 * after the focused one (so pressing it again goes to the next match),
 * wrapping around; a longer word looks from the focused row itself, so "no"
 * then "not" stays on "notes". A word of one repeated letter ("ppp") that no
 * name starts with cycles through the names starting with that letter, as
 * file managers do. Case is ignored.
 */
export function typeAheadMatch(rows: readonly Pick<Row, 'name'>[], from: number, word: string): number | undefined {
  if (!word || rows.length === 0) return undefined;
  const lower = word.toLocaleLowerCase();
  const find = (prefix: string, start: number): number | undefined => {
    for (let k = 0; k < rows.length; k++) {
      const i = (start + k) % rows.length;
      if (rows[i]!.name.toLocaleLowerCase().startsWith(prefix)) return i;
    }
    return undefined;
  };
  const start = Math.max(0, from);
  const [first] = [...lower];
  if (lower.length === first!.length) return find(lower, start + 1);
  const whole = find(lower, start);
  if (whole !== undefined) return whole;
  return [...lower].every((c) => c === first) ? find(first!, start + 1) : undefined;
}
