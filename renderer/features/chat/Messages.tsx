import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { Entry, replySummary } from './Transcript';

/** How close to the end (px) still counts as "at the bottom", so a reply being followed keeps being followed. */
const BOTTOM_SLACK = 48;

/**
 * The scrolling transcript. Only the messages in and near view are in the
 * page, so a conversation of any length costs the same to draw and to stream
 * into. While the user is at the bottom it follows new text; once they scroll
 * up it stays where they put it. Screen readers get one polite announcement
 * per finished reply, not every streamed word.
 */
export function Messages({ conversationId, entries, onOpen, tail }: Props) {
  const [announcement, setAnnouncement] = useState('');
  const seen = useRef({ conversationId, count: entries.length });
  useEffect(() => {
    const before = seen.current;
    seen.current = { conversationId, count: entries.length };
    if (before.conversationId !== conversationId || entries.length <= before.count) return;
    const last = entries.at(-1);
    if (last?.role === 'assistant') setAnnouncement(replySummary(last));
  }, [conversationId, entries]);
  return (
    <>
      {/* A list of its own per conversation: it opens at its end, with no sizes or scroll position carried over. */}
      <List key={conversationId ?? ''} entries={entries} onOpen={onOpen} tail={tail} />
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
    </>
  );
}

interface Props {
  conversationId: string | undefined;
  entries: TranscriptEntry[];
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

function List({ entries, onOpen, tail }: Omit<Props, 'conversationId'>) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => estimate(entries[i]),
    getItemKey: (i) => `${i}-${entries[i]?.at}`,
    overscan: 3,
    // Start at the end: the first render already holds the last messages, not the first ones.
    initialOffset: () => entries.reduce((sum, e) => sum + estimate(e), 0),
  });

  const follow = useCallback(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
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

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={scroller}
      className="messages"
      role="region"
      aria-label="Conversation"
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK;
      }}
    >
      <div className="messages-inner" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((row) => (
          <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="tx-row" style={{ transform: `translateY(${row.start}px)` }}>
            <Entry entry={entries[row.index]!} onOpen={onOpen} />
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
