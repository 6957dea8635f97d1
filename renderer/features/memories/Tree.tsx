import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Entry, ReviewEntry } from '../../../electron/shared/ipc';
import { writerBadge } from './provenance';
import { reviewWords } from './ReviewCount';

const ROOT = '/memories';
const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const when = (ms: number) => new Date(ms).toLocaleString();
const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

interface Row {
  entry: Entry;
  level: number;
  posinset: number;
  setsize: number;
}

/** The rows a person sees: each folder's children under it (sorted by name), none below a collapsed folder. */
function visibleRows(entries: Entry[], collapsed: Set<string>): Row[] {
  const children = new Map<string, Entry[]>();
  for (const e of entries) {
    const list = children.get(parentOf(e.path)) ?? [];
    list.push(e);
    children.set(parentOf(e.path), list);
  }
  const rows: Row[] = [];
  const walk = (dir: string, level: number) => {
    const kids = (children.get(dir) ?? []).sort((a, b) => (nameOf(a.path) < nameOf(b.path) ? -1 : nameOf(a.path) > nameOf(b.path) ? 1 : 0));
    kids.forEach((entry, i) => {
      rows.push({ entry, level, posinset: i + 1, setsize: kids.length });
      if (entry.kind === 'dir' && !collapsed.has(entry.path)) walk(entry.path, level + 1);
    });
  };
  walk(ROOT, 1);
  return rows;
}

export interface TreeActions {
  /** Opens a memory or folder (click, Enter or Space). */
  onSelect: (e: Entry) => void;
  /** F2. */
  onRename: (e: Entry) => void;
  /** Delete: the pane asks before anything is deleted. */
  onDelete: (e: Entry) => void;
}

/**
 * The /memories tree, as the ARIA tree pattern with a roving tabindex: exactly
 * one item is in the Tab order (the focused, else the selected, else the first
 * one); Up/Down move, Right expands a folder or enters it, Left collapses it
 * or goes to the parent, Home/End jump, Enter opens, F2 renames, Delete asks.
 * Each file shows its size, time and last writer. Nothing is decrypted until a
 * file is opened.
 */
export function Tree({ entries, selected, onSelect, onRename, onDelete, review }: { entries: Entry[]; selected: string | undefined; review?: ReviewEntry[] | undefined } & TreeActions) {
  const toReview = useMemo(() => new Map((review ?? []).map((r) => [r.path, r])), [review]);
  const [collapsed, setCollapsed] = useState(new Set<string>());
  const [active, setActive] = useState<string>();
  // Two trees can be mounted at once (the pane beside the chat and the Memories tab): each item's description id is this tree's own.
  const descId = useId();
  const items = useRef(new Map<string, HTMLLIElement>());
  const moved = useRef(false);
  const rows = useMemo(() => visibleRows(entries, collapsed), [entries, collapsed]);
  const has = (p: string | undefined) => p !== undefined && rows.some((r) => r.entry.path === p);
  const tabbable = has(active) ? active : has(selected) ? selected : rows[0]?.entry.path;

  useEffect(() => {
    if (moved.current && tabbable) items.current.get(tabbable)?.focus();
    moved.current = false;
  }, [tabbable, rows]);

  if (entries.length === 0) return <p className="empty">No memories yet. Claude adds them as you chat, or create one with “New memory”.</p>;

  const moveTo = (p: string | undefined) => {
    if (!p) return;
    moved.current = true;
    setActive(p);
    items.current.get(p)?.focus();
  };
  const setFolder = (p: string, open: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (open) next.delete(p);
      else next.add(p);
      return next;
    });

  const onKey = (k: React.KeyboardEvent, row: Row, i: number) => {
    const e = row.entry;
    const open = e.kind === 'dir' && !collapsed.has(e.path);
    switch (k.key) {
      case 'ArrowDown':
        moveTo(rows[i + 1]?.entry.path);
        break;
      case 'ArrowUp':
        moveTo(rows[i - 1]?.entry.path);
        break;
      case 'Home':
        moveTo(rows[0]?.entry.path);
        break;
      case 'End':
        moveTo(rows.at(-1)?.entry.path);
        break;
      case 'ArrowRight':
        if (e.kind === 'dir' && !open) setFolder(e.path, true);
        else if (open && rows[i + 1]?.level === row.level + 1) moveTo(rows[i + 1]!.entry.path);
        break;
      case 'ArrowLeft':
        if (open) setFolder(e.path, false);
        else if (parentOf(e.path) !== ROOT) moveTo(parentOf(e.path));
        break;
      case 'Enter':
      case ' ':
        onSelect(e);
        break;
      case 'F2':
        onRename(e);
        break;
      case 'Delete':
        onDelete(e);
        break;
      default:
        return;
    }
    k.preventDefault();
  };

  return (
    <ul role="tree" aria-label="Memories" className="tree">
      {rows.map((row, i) => {
        const e = row.entry;
        const name = nameOf(e.path);
        const badge = e.kind === 'file' ? writerBadge(e.by) : undefined;
        const unreviewed = toReview.get(e.path);
        const open = e.kind === 'dir' ? !collapsed.has(e.path) : undefined;
        return (
          <li
            key={e.path}
            ref={(el) => {
              if (el) items.current.set(e.path, el);
              else items.current.delete(e.path);
            }}
            role="treeitem"
            aria-describedby={`${descId}-${i}`}
            aria-selected={selected === e.path}
            aria-expanded={open}
            aria-level={row.level}
            aria-posinset={row.posinset}
            aria-setsize={row.setsize}
            tabIndex={tabbable === e.path ? 0 : -1}
            className={`${e.kind} ${selected === e.path ? 'selected' : ''}`}
            style={{ paddingLeft: `${0.5 + (row.level - 1) * 1.1}rem` }}
            onClick={() => {
              setActive(e.path);
              onSelect(e);
            }}
            onFocus={() => setActive(e.path)}
            onKeyDown={(k) => onKey(k, row, i)}
            title={e.path}
          >
            <span className="name">
              {e.kind === 'dir' && (
                <span
                  className="caret"
                  aria-hidden="true"
                  onClick={(c) => {
                    c.stopPropagation();
                    setFolder(e.path, !open);
                  }}
                >
                  {open ? '▾' : '▸'}{' '}
                </span>
              )}
              {name}
              {unreviewed && (
                <span className="badge review" aria-hidden="true" title="Not reviewed yet: see To review">
                  ● {unreviewed.kind === 'new' ? 'new' : 'changed'}
                </span>
              )}
              {badge && (
                <span className={`badge ${badge.tone}`} aria-hidden="true" title={`Last changed by ${badge.who}`}>
                  {badge.text}
                </span>
              )}
            </span>
            <span className="meta" aria-hidden="true">
              {e.kind === 'file' ? `${size(e.size)} · ` : ''}
              {when(e.modified)}
            </span>
            {/* The item's name is the file name; the badge and the line under it are said in words here, as its description. */}
            <span className="spoken" id={`${descId}-${i}`} aria-hidden="true">
              {unreviewed ? `${reviewWords(unreviewed).replace(/^./, (c) => c.toUpperCase())}. ` : ''}
              {badge ? `Last changed by ${badge.who}. ` : ''}
              {e.kind === 'file' ? `${size(e.size)}, ` : ''}
              {when(e.modified)}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
