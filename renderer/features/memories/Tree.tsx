import { defaultRangeExtractor, observeElementRect, useVirtualizer, type Rect, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Entry, ReviewEntry } from '../../../electron/shared/ipc-values';
import { imeOwnsKey } from '../../lib/keys';
import { ROOT, ancestorsOf, expandedFor, indexEntries, parentOf, TYPE_AHEAD_RESET_MS, typeAheadAfter, typeAheadMatch, visibleRows, type Row, type TypeAhead } from './tree-rows';
import { hasDescription, rowTitle, RowParts } from './TreeRow';
import { useTreeDetails } from './tree-details';
import './Tree.css';

/**
 * The scroller's size, except while it is hidden (another tab shown, the hits
 * list in its place): then the last size seen, else a window's height. With a
 * zero size the virtualiser would draw nothing, and showing the tree again
 * would paint it empty for a frame before the resize is noticed.
 */
function observeShownRect(instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: Rect) => void): void | (() => void) {
  let last: Rect = { width: 0, height: window.innerHeight };
  return observeElementRect(instance, (rect) => {
    if (rect.height > 0) last = rect;
    cb(rect.height > 0 ? rect : last);
  });
}

/** A row's height before one is measured (px): --row-height at the default font size. */
const ROW_GUESS = 28.5;
/** Rows drawn beyond each edge of the view, so a key press or a short scroll rarely shows an empty line. */
const OVERSCAN = 12;

export interface TreeActions {
  /** Opens a memory or folder (click, Enter or Space). */
  onSelect: (e: Entry) => void;
  /** F2. */
  onRename: (e: Entry) => void;
  /** Delete: the pane asks before anything is deleted. */
  onDelete: (e: Entry) => void;
}

interface Props extends TreeActions {
  entries: Entry[];
  selected: string | undefined;
  review?: ReviewEntry[] | undefined;
  /** A new `n` asks to show `path` and put focus on it: its folders opened, scrolled to, highlighted (a search hit opened, a folder created). */
  reveal?: { path: string; n: number } | undefined;
  hidden?: boolean | undefined;
}

/**
 * The /memories tree, as the ARIA tree pattern with a roving tabindex: exactly
 * one item is in the Tab order (the focused, else the selected, else the first
 * one); Up/Down move, Right expands a folder or enters it, Left collapses it
 * or goes to the parent, Home/End jump, Enter opens, F2 renames, Delete asks,
 * and typing a name's first letters goes to it. Folders start closed except the
 * path to the selected memory, which is opened, scrolled to and highlighted
 * whenever the selection changes (from a search hit, a chip, a link). Only the
 * rows in and near view are in the page, so 10,000 memories cost what 50 do;
 * the focused row always stays in the page so focus and Tab never get lost.
 * Nothing is decrypted until a file is opened.
 */
export function Tree({ entries, selected, onSelect, onRename, onDelete, review, reveal, hidden }: Props) {
  const { t } = useTranslation('memories');
  // A memory with a change and a conflict to review is marked with the conflict: the one that asks more of the user.
  const toReview = useMemo(() => new Map([...(review ?? [])].sort((a, b) => Number(a.kind === 'conflict') - Number(b.kind === 'conflict')).map((r) => [r.path, r])), [review]);
  const index = useMemo(() => indexEntries(entries), [entries]);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(selected ? ancestorsOf(selected) : []));
  const rows = useMemo(() => visibleRows(index, expanded), [index, expanded]);
  const rowOf = useMemo(() => new Map(rows.map((r, i) => [r.entry.path, i])), [rows]);
  const [active, setActive] = useState<string>();
  const [details, setDetails] = useTreeDetails();
  const [flash, setFlash] = useState<string>();
  // Two trees can be mounted at once (the pane beside the chat and the Memories tab): each item's description id is this tree's own.
  const descId = useId();
  const scroller = useRef<HTMLDivElement>(null);
  const items = useRef(new Map<string, HTMLLIElement>());
  // Work that waits for a row to be laid out: scrolling to a revealed item, focusing one moved to by key.
  const pendingScroll = useRef<{ path: string; flash: boolean }>(undefined);
  const pendingFocus = useRef<string>(undefined);
  const revealed = useRef<string>(undefined);
  const typed = useRef<TypeAhead>(undefined);
  const [rowPx, setRowPx] = useState(ROW_GUESS);

  const tabbable = active !== undefined && rowOf.has(active) ? active : selected !== undefined && rowOf.has(selected) ? selected : rows[0]?.entry.path;
  const tabbableAt = tabbable === undefined ? undefined : rowOf.get(tabbable);
  // Stable between renders: a new function here makes the virtualizer lay out every row again (O(n) per scroll frame).
  const estimateSize = useCallback(() => rowPx, [rowPx]);
  const getItemKey = useCallback((i: number) => rows[i]?.entry.path ?? i, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: OVERSCAN,
    // The Tab stop is always in the page, even scrolled far away: Tab into the tree and focus itself need it.
    rangeExtractor: (range) => {
      const at = defaultRangeExtractor(range);
      if (tabbableAt === undefined || tabbableAt >= range.count || at.includes(tabbableAt)) return at;
      return [...at, tabbableAt].sort((a, b) => a - b);
    },
    // Until the scroller is measured, and while it is hidden: about a window of rows, not none, so the first paint already shows the tree.
    initialRect: { width: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight },
    observeElementRect: observeShownRect,
  });

  /** Opens the folders down to `path` (and it, a folder), makes it the Tab stop and scrolls to it once laid out. False until it is listed. */
  const show = (path: string, focus: boolean): boolean => {
    const entry = index.byPath.get(path);
    if (!entry) return false;
    setExpanded((x) => expandedFor(x, path, entry.kind === 'dir'));
    setActive(path);
    pendingScroll.current = { path, flash: !rowOf.has(path) };
    if (focus) pendingFocus.current = path;
    return true;
  };
  // A new selection (here or from elsewhere) is shown; one not listed yet (just created, the list on its way) when it arrives.
  useLayoutEffect(() => {
    if (selected === undefined || revealed.current === selected) revealed.current = selected;
    else if (show(selected, false)) revealed.current = selected;
  });
  // An ask to show something and focus it, once per `n`; a selection changing on its own leaves focus where it is.
  const revealedAsk = useRef(reveal?.n);
  useLayoutEffect(() => {
    if (reveal && reveal.n !== revealedAsk.current && show(reveal.path, true)) revealedAsk.current = reveal.n;
  });

  // After every render: rows may have been laid out that something was waiting for.
  useLayoutEffect(() => {
    const box = scroller.current;
    const first = box?.querySelector('[role=treeitem]');
    const h = first?.getBoundingClientRect().height ?? 0;
    // The row height follows the font size and zoom; the virtualizer needs it in pixels.
    if (h > 0 && Math.abs(h - rowPx) > 0.01) setRowPx(h);
    const want = pendingScroll.current;
    if (want && box && box.clientHeight > 0) {
      const i = rowOf.get(want.path);
      if (i !== undefined) {
        pendingScroll.current = undefined;
        const top = i * rowPx;
        const bottom = top + rowPx;
        const view = { top: box.scrollTop, bottom: box.scrollTop + box.clientHeight };
        const inView = top >= view.top && bottom <= view.bottom;
        const partly = !inView && bottom > view.top && top < view.bottom;
        // A row half in view (clicked at the edge) just comes fully in; one far away or in a closed folder is centred and highlighted.
        if (!inView) virtualizer.scrollToIndex(i, { align: partly && !want.flash ? 'auto' : 'center' });
        if (want.flash || !(inView || partly)) setFlash(want.path);
      }
    }
    const f = pendingFocus.current;
    const el = f === undefined ? undefined : items.current.get(f);
    if (el) {
      pendingFocus.current = undefined;
      el.focus();
    }
  });
  useLayoutEffect(() => {
    virtualizer.measure();
  }, [rowPx, virtualizer]);

  const moveTo = (i: number | undefined) => {
    const row = i === undefined ? undefined : rows[i];
    if (!row) return;
    const p = row.entry.path;
    setActive(p);
    virtualizer.scrollToIndex(i!, { align: 'auto' });
    const el = items.current.get(p);
    // Not in the page yet: focused once the scroll has drawn it.
    pendingFocus.current = el ? undefined : p;
    el?.focus();
  };
  const setFolder = (p: string, open: boolean) =>
    setExpanded((x) => {
      if (x.has(p) === open) return x;
      const next = new Set(x);
      if (open) next.add(p);
      else next.delete(p);
      return next;
    });
  const choose = (e: Entry) => {
    setActive(e.path);
    if (e.kind === 'dir') setFolder(e.path, true);
    onSelect(e);
  };

  const onKey = (k: React.KeyboardEvent, row: Row, i: number) => {
    if (imeOwnsKey(k)) return;
    const e = row.entry;
    const open = e.kind === 'dir' && expanded.has(e.path);
    const now = performance.now();
    const typing = typed.current !== undefined && now - typed.current.at <= TYPE_AHEAD_RESET_MS;
    // Any other key ends a word being typed: after an arrow, a letter starts a new search.
    const word = typed.current;
    typed.current = undefined;
    switch (k.key) {
      case 'ArrowDown':
        moveTo(i + 1);
        break;
      case 'ArrowUp':
        moveTo(i - 1);
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rows.length - 1);
        break;
      case 'ArrowRight':
        if (e.kind === 'dir' && !open) setFolder(e.path, true);
        else if (open && rows[i + 1]?.level === row.level + 1) moveTo(i + 1);
        break;
      case 'ArrowLeft':
        if (open) setFolder(e.path, false);
        else if (parentOf(e.path) !== ROOT) moveTo(rowOf.get(parentOf(e.path)));
        break;
      case 'Enter':
        choose(e);
        break;
      case 'F2':
        onRename(e);
        break;
      case 'Delete':
        onDelete(e);
        break;
      default: {
        if (k.ctrlKey || k.metaKey || k.altKey || [...k.key].length !== 1) {
          // A modifier or Shift alone does not end the word ("Notes" is typed with Shift).
          if (k.key === 'Shift') typed.current = word;
          return;
        }
        // Space opens, as Enter does, unless it is inside a name being typed.
        if (k.key === ' ' && !typing) {
          choose(e);
          break;
        }
        // Type-ahead: the next name starting with what was typed (the word resets after a pause).
        typed.current = typeAheadAfter(word, k.key, now);
        moveTo(typeAheadMatch(rows, i, typed.current.text));
      }
    }
    k.preventDefault();
  };

  if (entries.length === 0) return hidden ? null : <p className="empty">{t('tree.empty')}</p>;

  return (
    <div className="tree-box" hidden={hidden}>
      <div className="tree-scroll" ref={scroller}>
        <ul role="tree" aria-label={t('tree.label')} className={`tree${details ? ' with-details' : ''}`} style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index];
            if (!row) return null;
            const e = row.entry;
            const unreviewed = toReview.get(e.path);
            const open = e.kind === 'dir' ? expanded.has(e.path) : undefined;
            const descIdOf = `${descId}-${v.index}`;
            return (
              <li
                key={v.key}
                data-index={v.index}
                ref={(el) => {
                  if (el) items.current.set(e.path, el);
                  else items.current.delete(e.path);
                }}
                role="treeitem"
                aria-describedby={hasDescription(e, unreviewed) ? descIdOf : undefined}
                aria-selected={selected === e.path}
                aria-expanded={open}
                aria-level={row.level}
                aria-posinset={row.posinset}
                aria-setsize={row.setsize}
                tabIndex={tabbable === e.path ? 0 : -1}
                className={`${e.kind}${selected === e.path ? ' selected' : ''}${flash === e.path ? ' revealed' : ''}`}
                style={{ transform: `translateY(${v.start}px)`, '--level': row.level } as React.CSSProperties}
                onClick={() => choose(e)}
                onFocus={() => setActive(e.path)}
                onKeyDown={(k) => onKey(k, row, v.index)}
                onAnimationEnd={() => setFlash(undefined)}
                title={rowTitle(t, e)}
              >
                {e.kind === 'dir' ? (
                  <span
                    className="caret"
                    aria-hidden="true"
                    onClick={(c) => {
                      c.stopPropagation();
                      setFolder(e.path, !open);
                    }}
                  >
                    {open ? '▾' : '▸'}
                  </span>
                ) : (
                  <span className="caret" aria-hidden="true" />
                )}
                <RowParts row={row} unreviewed={unreviewed} details={details} descId={descIdOf} />
              </li>
            );
          })}
        </ul>
      </div>
      {/* Below the tree, so Tab goes from the search straight into the tree, and the order on screen is the order of focus. */}
      <div className="tree-bar">
        <button className="small" aria-pressed={details} onClick={() => setDetails(!details)} title={t('tree.showDetailsTitle')}>
          {t('tree.showDetails')}
        </button>
      </div>
    </div>
  );
}
