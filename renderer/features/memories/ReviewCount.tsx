import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReviewEntry } from '../../../electron/shared/ipc';
import { call, on } from '../../lib/api';
import { coalesced } from '../../lib/coalesce';
import { mcpWriter } from './provenance';

/** Everything that shows the review inbox, told when a mark changed it (a mark is no memory change, so no event says so). */
const listeners = new Set<() => void>();

/** Tells every review count and list to refresh: call after marking. */
export function reviewMarked(): void {
  for (const l of listeners) l();
}

/**
 * Runs `fetch` now, on every memory change and after every mark. A burst of
 * changes (Claude writing several memories in one turn) asks main a few
 * times (see `coalesced`), not once per change.
 */
function useReviewRefresh(fetch: () => Promise<unknown>): void {
  useEffect(() => {
    const follow = coalesced(fetch);
    const run = follow.run;
    void fetch();
    listeners.add(run);
    const off = on('memoryChanged', run);
    return () => {
      listeners.delete(run);
      off();
      follow.stop();
    };
  }, [fetch]);
}

/** How many memory changes wait for review, in every project (0 until known). */
export function useReviewCount(): number {
  const [count, setCount] = useState(0);
  const refresh = useCallback(
    // Without a count the tab simply shows none; the list itself reports errors.
    () =>
      call('reviewCounts').then(
        (c) => setCount(c.total),
        () => undefined,
      ),
    [],
  );
  useReviewRefresh(refresh);
  return count;
}

/** What waits for review in one project's memory (the first project without one), kept current. */
export function useReviewList(project?: string): {
  entries: ReviewEntry[] | undefined;
  error: string | undefined;
} {
  const [entries, setEntries] = useState<ReviewEntry[]>();
  const [error, setError] = useState<string>();
  // Only the latest ask may land: a late list of the project picked before would mark files of this one.
  const latest = useRef(0);
  const refresh = useCallback(() => {
    const ask = ++latest.current;
    return call('reviewList', project ? { project } : undefined).then(
      (list) => {
        if (ask !== latest.current) return;
        setEntries(list);
        setError(undefined);
      },
      (e: unknown) => {
        if (ask === latest.current) setError(e instanceof Error ? e.message : 'The changes to review could not be listed. Try again.');
      },
    );
  }, [project]);
  useReviewRefresh(refresh);
  return { entries, error };
}

/** "changed by Claude, not reviewed" — the words a tree item and a list item say about a change. */
export function reviewWords(e: ReviewEntry): string {
  const by = e.by.kind === 'claude' ? 'Claude' : e.by.kind === 'cli' ? 'a script' : e.by.kind === 'mcp' ? mcpWriter(e.by.client) : 'another writer';
  const what = e.from ? `moved here by ${by}` : e.kind === 'new' ? `new from ${by}` : e.kind === 'changed' ? `changed by ${by}` : `deleted by ${by}`;
  return `${what}, not reviewed`;
}
