import { useCallback, useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ReviewEntry } from '../../../electron/shared/ipc-values';
import { call, messageOf, on } from '../../lib/api';
import { coalesced } from '../../lib/coalesce';
import { i18n } from '../../lib/i18n';
import { PathText } from './PathText';
import { ChangeWriter } from './provenance';

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
    const offSync = on('vaultSynced', run);
    return () => {
      listeners.delete(run);
      off();
      offSync();
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
        if (ask === latest.current) setError(e instanceof Error ? messageOf(e) : i18n.t('memories:review.listError'));
      },
    );
  }, [project]);
  useReviewRefresh(refresh);
  return { entries, error };
}

const FORMS = {
  state: {
    moved: 'review.state.moved',
    new: 'review.state.new',
    changed: 'review.state.changed',
    deleted: 'review.state.deleted',
    conflictEdit: 'review.state.conflictEdit',
    conflictDelete: 'review.state.conflictDelete',
  },
  spoken: {
    moved: 'tree.spokenReview.moved',
    new: 'tree.spokenReview.new',
    changed: 'tree.spokenReview.changed',
    deleted: 'tree.spokenReview.deleted',
    conflictEdit: 'tree.spokenReview.conflictEdit',
    conflictDelete: 'tree.spokenReview.conflictDelete',
  },
  heading: {
    moved: 'review.heading.moved',
    new: 'review.heading.new',
    changed: 'review.heading.changed',
    deleted: 'review.heading.deleted',
    conflictEdit: 'review.heading.conflictEdit',
    conflictDelete: 'review.heading.conflictDelete',
  },
} as const;

/** Which words say what happened to `entry`: a move, a conflict between computers (of which kind), or its kind. */
const whatOf = (entry: ReviewEntry) => (entry.from ? 'moved' : entry.kind !== 'conflict' ? entry.kind : entry.conflict?.what === 'delete' ? 'conflictDelete' : 'conflictEdit');

/**
 * What happened to a memory that waits for review, in words: "changed by Claude, not reviewed" in
 * the review list (`state`), "Changed by Claude, not reviewed." said of a tree item (`spoken`),
 * "Moved here by Claude (from /memories/a.md) · version 3" over its diff (`heading`). An app's name
 * and a path are isolated for right-to-left scripts.
 */
export function ReviewWords({ entry, form }: { entry: ReviewEntry; form: keyof typeof FORMS }) {
  const { t } = useTranslation('memories');
  const what = whatOf(entry);
  return <Trans t={t} i18nKey={FORMS[form][what]} values={{ version: entry.version }} components={[<ChangeWriter by={entry.by} />, <PathText path={entry.from ?? ''} />]} />;
}
