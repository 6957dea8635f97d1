import { elementScroll, useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { Entry, replySummary } from './Transcript';
import type { EntryDecor } from './versions';

/** How close to the end (px) still counts as "at the bottom", so a reply being followed keeps being followed. */
const BOTTOM_SLACK = 48;
const nearEnd = (el: HTMLElement) => el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK;

// Found by class, not by name: names are in the window's language.
const EDITOR = 'textarea.edit-message-input';
/**
 * What the reader is working on in the transcript, which a resize or a redraw
 * must not scroll away: the open editor, or a version switch they pressed
 * (it keeps focus while its message is drawn again). Undefined: nothing.
 */
function heldIn(box: HTMLElement, editing: boolean): HTMLElement | undefined {
  const active = document.activeElement;
  if (active instanceof HTMLElement && active !== box && box.contains(active) && active.closest(`.version-switch, ${EDITOR}`)) return active;
  return editing ? (box.querySelector<HTMLElement>(EDITOR) ?? undefined) : undefined;
}

/** True when `el` is wholly inside `box`'s view. */
function inView(box: HTMLElement, el: HTMLElement): boolean {
  const b = box.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
}

const sizeOf = (box: HTMLElement) => `${box.clientWidth}x${box.clientHeight}`;

/** Scrolls `box` the least that brings `el` into view (its top, if it is taller than the view). */
function bringIntoView(box: HTMLElement, el: HTMLElement): void {
  const b = box.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  if (r.top < b.top || r.height > b.height) box.scrollTop -= b.top - r.top;
  else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
}

/**
 * The scrolling transcript. Only the messages in and near view are in the
 * page, so a conversation of any length costs the same to draw and to stream
 * into. While the user is at the bottom it follows new text; once they scroll
 * up it stays where they put it. While they edit a message or step through
 * its versions it does not follow either: what they work on stays in view,
 * through a resize too. Screen readers get one polite announcement
 * per finished reply, not every streamed word.
 */
export function Messages({ conversationId, entries, decor, earlier, onEarlier, followKey, onOpen, tail }: Props) {
  const [announcement, setAnnouncement] = useState<ReturnType<typeof replySummary>>();
  const seen = useRef({ conversationId, newest: entries.at(-1)?.at ?? 0 });
  useEffect(() => {
    const before = seen.current;
    const last = entries.at(-1);
    seen.current = { conversationId, newest: Math.max(last?.at ?? 0, before.conversationId === conversationId ? before.newest : 0) };
    // A last entry newer than any seen is a new reply; earlier messages loaded in front of it are not, nor the
    // replies a version switch or a new version's start brings back into view (they are older).
    if (before.conversationId !== conversationId || !last || last.at <= before.newest) return;
    if (last.role === 'assistant') setAnnouncement(replySummary(last));
  }, [conversationId, entries]);
  return (
    <>
      {/* A list of its own per conversation: it opens at its end, with no sizes or scroll position carried over. */}
      <List key={conversationId ?? ''} entries={entries} decor={decor} earlier={earlier} onEarlier={onEarlier} followKey={followKey} onOpen={onOpen} tail={tail} />
      <p className="sr-only" role="status" aria-live="polite">
        {announcement && (
          <>
            {announcement.replied} {announcement.opening && <span dir="auto">{announcement.opening}</span>} {announcement.changes}
          </>
        )}
      </p>
    </>
  );
}

interface Props {
  conversationId: string | undefined;
  entries: TranscriptEntry[];
  /** Per entry, what it offers besides its text (Edit, Regenerate, its versions); see versions.ts. */
  decor?: EntryDecor[] | undefined;
  /** How many older entries were not loaded; a button at the top loads them. */
  earlier: number;
  onEarlier: () => void;
  /** Changes when the user sends a message: the view goes to the end to show the reply, wherever it was. */
  followKey?: string | undefined;
  onOpen: (path: string) => void;
  tail: ReactNode;
}

/** A message's likely height before it is measured, from its lines: close guesses mean few corrections while opening. */
function estimate(e: TranscriptEntry | undefined): number {
  if (!e) return 100;
  let lines = 1;
  for (let at = e.text.indexOf('\n'); at !== -1; at = e.text.indexOf('\n', at + 1)) lines++;
  lines += Math.floor(e.text.length / 110);
  return (e.role === 'user' ? 50 : 70) + 21 * lines;
}

function List({ entries, decor, earlier, onEarlier, followKey, onOpen, tail }: Omit<Props, 'conversationId'>) {
  const { t } = useTranslation('chat');
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  // The rows start below the "Show earlier messages" button when there is one.
  const [margin, setMargin] = useState(0);
  const hasEarlier = earlier > 0;
  useLayoutEffect(() => {
    const box = scroller.current;
    const rows = inner.current;
    if (box && rows) setMargin(rows.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop);
  }, [hasEarlier]);
  /**
   * Where the window itself last put the view (a pin to the end, a size correction, a jump): a scroll event that
   * finds the view still there is the window's own, not the reader's. On a busy machine such an event can come after
   * a message below grew and before the render that pins the end again; it must not stop the following.
   */
  const placed = useRef<number | undefined>(undefined);
  const movedByReader = (el: HTMLElement) => placed.current === undefined || Math.abs(el.scrollTop - placed.current) > 1;
  const virtualizer = useVirtualizer({
    scrollToFn: (offset, options, instance) => {
      elementScroll(offset, options, instance);
      if (scroller.current) placed.current = scroller.current.scrollTop;
    },
    count: entries.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => estimate(entries[i]),
    getItemKey: (i) => `${i}-${entries[i]?.at}`,
    overscan: 3,
    scrollMargin: margin,
    // Start at the end: the first render already holds the last messages, not the first ones.
    initialOffset: () => entries.reduce((sum, e) => sum + estimate(e), 0),
  });
  // A size correction scrolls to the offset the virtualizer last saw plus the change. If the reader scrolled since
  // and its event is not in yet, that offset is stale and the correction would pull them back: skip it then.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, v) => {
    const seen = v.scrollOffset ?? 0;
    const el = scroller.current;
    return el !== null && Math.abs(el.scrollTop - seen) <= 1 && item.start < seen;
  };

  /** Where `follow` last put the view; a view found above it, away from the end, was moved by the reader. */
  const pinnedTop = useRef<number | undefined>(undefined);
  const editing = useRef(false);
  editing.current = decor?.some((d) => d.editing !== undefined) ?? false;
  /** What the reader works on (heldIn) and whether it was in view when last seen: then a resize or redraw keeps it there. */
  const held = useRef<{ el: HTMLElement; seen: boolean; size: string } | undefined>(undefined);
  const follow = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    // A render can run between the reader's scroll and its event (a busy machine queues both): the event would come
    // too late to stop this pin, which would pull the reader back to the end. The position itself says they left.
    if (pinnedTop.current !== undefined && movedByReader(el) && el.scrollTop < pinnedTop.current - BOTTOM_SLACK && !nearEnd(el)) atBottom.current = false;
    const work = heldIn(el, editing.current);
    if (work) {
      // Just opened or pressed, it is where the reader looks; one they scrolled away from stays out of view.
      const seen = held.current?.el === work ? held.current.seen : true;
      if (seen && !inView(el, work)) {
        bringIntoView(el, work);
        placed.current = el.scrollTop;
      }
      held.current = { el: work, seen, size: sizeOf(el) };
      return;
    }
    held.current = undefined;
    if (!atBottom.current) return;
    el.scrollTop = el.scrollHeight;
    pinnedTop.current = placed.current = el.scrollTop;
  }, []);

  // Every render may have grown the content (streamed text, a measured message): keep the end in view if it was.
  useLayoutEffect(follow);

  // The tail (the reply being streamed) also grows as its Markdown is set: follow it as it resizes.
  const tailEl = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = tailEl.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(follow);
    ro.observe(el);
    return () => ro.disconnect();
  }, [follow]);

  // A message sent: show its reply as it comes, wherever the reader was.
  useLayoutEffect(() => {
    if (followKey === undefined) return;
    // The reader's earlier place (above the end) is not a reason to stay: they asked for the reply.
    pinnedTop.current = undefined;
    atBottom.current = true;
    follow();
  }, [followKey, follow]);

  // Older messages loaded in front: keep the one that was first in view where the reader left it.
  const first = useRef(entries[0]);
  useLayoutEffect(() => {
    const before = first.current;
    first.current = entries[0];
    if (!before || (before.at === entries[0]?.at && before.role === entries[0]?.role)) return;
    const at = entries.findIndex((e) => e.at === before.at && e.role === before.role);
    if (at > 0) {
      atBottom.current = false;
      virtualizer.scrollToIndex(at, { align: 'start' });
    }
  }, [entries, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={scroller}
      className="messages"
      role="region"
      aria-label={t('transcript.region')}
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        // Only the reader's own scrolling leaves the end; the window's own scrolls keep following while it follows.
        atBottom.current = nearEnd(el) || (atBottom.current && !movedByReader(el));
        // A resize scrolls too (the end moves): only the reader's own scrolling takes it out of view.
        if (held.current && held.current.size === sizeOf(el)) held.current.seen = inView(el, held.current.el);
        if (atBottom.current) pinnedTop.current = el.scrollTop;
      }}
    >
      {earlier > 0 && (
        <button type="button" className="earlier" onClick={onEarlier}>
          {t('transcript.earlier', { count: earlier })}
        </button>
      )}
      <div ref={inner} className="messages-inner" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((row) => (
          <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="tx-row" style={{ transform: `translateY(${row.start - margin}px)` }}>
            <Entry entry={entries[row.index]!} decor={decor?.[row.index]} onOpen={onOpen} />
          </div>
        ))}
      </div>
      {/* The reply being streamed and any error: always in the page, after the saved messages. */}
      <div ref={tailEl} className="tx-tail">
        {tail}
      </div>
    </div>
  );
}
