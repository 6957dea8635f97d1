import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReviewEntry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { PathText } from './PathText';
import { useConversationTitles, Writer } from './provenance';
import { reviewMarked, ReviewWords } from './ReviewCount';
import { ReviewDiff } from './ReviewDiff';
import './PaneTitle.css';

/** The two texts a change is shown as: the reviewed one (or nothing) and the one to review (or nothing, once deleted). */
async function texts(e: ReviewEntry, project: string | undefined): Promise<{ before: string; after: string }> {
  const read = async (version: number) => (await call('memoryReadVersion', { path: e.path, version, ...(project ? { project } : {}) })).text;
  if (e.kind === 'deleted') return { before: await read(e.version), after: '' };
  return { before: e.reviewedVersion !== undefined ? await read(e.reviewedVersion) : '', after: await read(e.version) };
}

/** Puts focus on the trash's entry for `path` once the trash shows it (it renders a few frames after it opens). */
function focusTrashEntry(path: string, frames = 120): void {
  const buttons = document.querySelectorAll<HTMLButtonElement>('section[data-pane="trash"] .trash-list button');
  const button = [...buttons].find((b) => b.querySelector('.path')?.textContent === path);
  if (button) return button.focus();
  if (frames > 0) requestAnimationFrame(() => focusTrashEntry(path, frames - 1));
}

function diffLabel(t: TFunction<'memories'>, e: ReviewEntry): string {
  if (e.kind === 'deleted') return t('review.diff.deleted', { path: e.path });
  if (e.reviewedVersion !== undefined) return t('review.diff.since', { version: e.reviewedVersion });
  // A change with no earlier version kept must not pass its whole text off as the change.
  return e.kind === 'changed' ? t('review.diff.whole', { version: e.version }) : t('review.diff.text', { version: e.version });
}

/**
 * The review inbox: every memory change Claude made since the user last
 * looked, each shown as a diff from the version the user last reviewed (a new
 * memory against nothing). "Mark reviewed" marks the version shown, so a
 * change that lands meanwhile stays listed; focus then moves to the next one.
 */
export function ReviewPane({
  entries,
  listError,
  project,
  onOpen,
  onOpenTrash,
}: {
  entries: ReviewEntry[];
  /** Why the list could not be refreshed, if it could not. */
  listError?: string | undefined;
  project?: string | undefined;
  onOpen: (path: string) => void;
  onOpenTrash: () => void;
}) {
  const { t } = useTranslation('memories');
  const [chosen, setChosen] = useState<string | undefined>(entries[0]?.path);
  /** The change whose diff is on screen: the one "Mark reviewed" marks, even when a newer version is still loading. */
  const [shown, setShown] = useState<{ key: string; entry: ReviewEntry; before: string; after: string }>();
  const [error, setError] = useState<string>();
  const titles = useConversationTitles();
  const items = useRef(new Map<string, HTMLButtonElement>());
  const heading = useRef<HTMLHeadingElement>(null);
  /** Where focus goes once the list has refreshed after a mark: an item's path, or the heading when none is left. */
  const focusNext = useRef<string | null | undefined>(undefined);

  const entry = entries.find((e) => e.path === chosen) ?? entries[0];
  const key = entry ? `${entry.path}#${entry.version}#${entry.reviewedVersion ?? ''}#${entry.kind}` : '';
  useEffect(() => {
    if (!entry) return;
    let live = true;
    texts(entry, project).then(
      (t) => live && setShown({ key, entry, ...t }),
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
    // The key names everything the texts depend on.
  }, [key, project]);

  // Opened from its button: focus goes to the first change, or to the heading when there is none.
  useEffect(() => {
    (entries[0] ? items.current.get(entries[0].path) : heading.current)?.focus();
    // Only when the pane opens; later list changes must not pull focus.
  }, []);

  useEffect(() => {
    const next = focusNext.current;
    if (next === undefined) return;
    const target = next === null ? undefined : items.current.get(next);
    if (next !== null && !target) return;
    focusNext.current = undefined;
    (target ?? heading.current)?.focus();
  }, [entries]);

  const mark = async (items: ReviewEntry[], after: string | null) => {
    try {
      await call('reviewMark', { items: items.map((e) => ({ path: e.path, version: e.version })), ...(project ? { project } : {}) });
      setError(undefined);
      focusNext.current = after;
      if (after) setChosen(after);
      reviewMarked();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  // The version seen, not the listed one: a change landing while its diff loads must stay to review.
  const seen = entry && shown?.entry.path === entry.path && shown.entry.kind === entry.kind ? shown.entry : undefined;
  const markOne = (e: ReviewEntry) => {
    const i = entries.findIndex((x) => x.path === e.path);
    const next = entries[i + 1] ?? entries[i - 1];
    void mark([e], next?.path ?? null);
  };

  return (
    <section className="trash-pane review-pane" aria-labelledby="review-title">
      <div className="toolbar">
        <h2 className="file-title pane-title" id="review-title" ref={heading} tabIndex={-1}>
          {t('review.title')}
        </h2>
        <button disabled={entries.length === 0} onClick={() => void mark(entries, null)}>
          {t('review.markAll')}
        </button>
      </div>
      <ErrorText message={error ?? listError} />
      <div className="trash-body">
        {entries.length === 0 && <p className="empty">{t('review.nothing')}</p>}
        <ul className="trash-list" aria-label={t('review.list')}>
          {entries.map((e) => (
            <li key={e.path}>
              <button
                ref={(el) => {
                  if (el) items.current.set(e.path, el);
                  else items.current.delete(e.path);
                }}
                aria-pressed={entry?.path === e.path}
                onClick={() => setChosen(e.path)}
              >
                <PathText path={e.path} className="path" />
                <span className="meta">
                  {' '}
                  · <ReviewWords entry={e} form="state" />
                </span>
              </button>
            </li>
          ))}
        </ul>
        {entry && (
          <div className="review-detail">
            {/* The list above names the file (its button is pressed); the heading says what happened to it, and names the file to screen readers only. */}
            <h3 className="review-what">
              <span className="sr-only">
                <PathText path={entry.path} />:{' '}
              </span>
              <span>
                <ReviewWords entry={entry} form="heading" />
              </span>
            </h3>
            <p>
              <Writer by={entry.by} titles={titles} />
            </p>
            {shown?.key === key ? <ReviewDiff key={key} before={shown.before} after={shown.after} label={diffLabel(t, entry)} /> : <p className="empty">{t('review.loading')}</p>}
            <div className="row">
              <button disabled={!seen} onClick={() => seen && markOne(seen)}>
                {t('review.mark')}
              </button>
              {entry.kind === 'deleted' ? <button
                  onClick={() => {
                    onOpenTrash();
                    focusTrashEntry(entry.path);
                  }}
                >
                  {t('review.openTrash')}
                </button> : <button onClick={() => onOpen(entry.path)}>{t('review.openEditor')}</button>}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
