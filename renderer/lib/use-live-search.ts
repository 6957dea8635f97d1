import { useEffect, useRef, useState } from 'react';
import { messageOf } from './api';

/** How long typing must pause before a search runs. */
export const SEARCH_DEBOUNCE_MS = 150;

/** The answer to one query: which query it was for, so nothing is ever shown as the answer to another. */
export interface Answer<T> {
  query: string;
  items: T[];
}

/**
 * Search as you type: `query` runs through `search` once typing pauses, and
 * only the answer to the latest query is kept (an older, slower answer never
 * overwrites a newer one). `scope` (a project) re-runs the search when it
 * changes. An empty box means no search: `answer` is undefined.
 */
export function useLiveSearch<T>(search: (query: string) => Promise<T[]>, scope = '') {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<Answer<T>>();
  const [error, setError] = useState<string>();
  const latest = useRef(0);
  const run = useRef(search);
  run.current = search;
  const q = query.trim();
  useEffect(() => {
    const ticket = ++latest.current;
    if (!q) {
      setAnswer(undefined);
      setError(undefined);
      return;
    }
    const timer = setTimeout(() => {
      run.current(q).then(
        (items) => {
          if (ticket !== latest.current) return;
          setAnswer({ query: q, items });
          setError(undefined);
        },
        (e: unknown) => ticket === latest.current && setError(messageOf(e)),
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q, scope]);
  /** True while the answer shown (if any) is not for what is in the box now. */
  const pending = q !== '' && answer?.query !== q;
  return { query, setQuery, answer: q ? answer : undefined, pending, error, clear: () => setQuery('') };
}
