import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReviewEntry } from '../../../electron/shared/ipc-values';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { PathText } from './PathText';
import { useConversationTitles, Writer } from './provenance';
import { reviewMarked, ReviewWords } from './ReviewCount';
import { ReviewDiff } from './ReviewDiff';
import { ConflictFacts } from './ConflictFacts';
import './PaneTitle.css';

/** An entry's identity in the list: a memory's change, or one conflict of it (a memory may have both). */
const itemKey = (e: ReviewEntry) => (e.conflict ? `${e.path}\u0000conflict\u0000${e.conflict.id}` : e.path);

/**
 * The two texts a change is shown as: the reviewed one (or nothing) and the one to review (or nothing, once deleted).
 * A conflict: the version set aside (or the one the delete removed) against the one kept.
 */
async function texts(e: ReviewEntry, project: string | undefined): Promise<{ before: string; after: string }> {
  const read = async (version: number) => (await call('memoryReadVersion', { path: e.path, version, ...(project ? { project } : {}) })).text;
  if (e.kind === 'deleted') return { before: await read(e.version), after: '' };
  if (e.conflict) {
    const other = e.conflict.versions[0];
    return { before: other !== undefined ? await read(other) : '', after: await read(e.version) };
  }
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
  if (e.conflict) {
    const other = e.conflict.versions[0];
    if (other === undefined) return t('review.diff.text', { version: e.version });
    return e.conflict.what === 'delete' ? t('review.diff.conflictDelete', { other, version: e.version }) : t('review.diff.conflictEdit', { other, version: e.version });
  }
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
 * A conflict between computers (a vault several write) is shown as the version
 * set aside against the one kept, with the computers, and can be opened in
 * the editor, its history, or (an edit conflict) the merge view.
 */
export function ReviewPane({
  entries,
  listError,
  project,
  onOpen,
  onOpenHistory,
  onOpenMerge,
  onOpenTrash,
}: {
  entries: ReviewEntry[];
  /** Why the list could not be refreshed, if it could not. */
  listError?: string | undefined;
  project?: string | undefined;
  onOpen: (path: string) => void;
  onOpenHistory: (path: string) => void;
  /** Opens the memory's merge view (an edit conflict with a version set aside still kept). */
  onOpenMerge: (path: string) => void;
  onOpenTrash: () => void;
}) {
  const { t } = useTranslation('memories');
  const [chosen, setChosen] = useState<string | undefined>(entries[0] && itemKey(entries[0]));
  /** The change whose diff is on screen: the one "Mark reviewed" marks, even when a newer version is still loading. */
  const [shown, setShown] = useState<{ key: string; entry: ReviewEntry; before: string; after: string }>();
  const [error, setError] = useState<string>();
  const titles = useConversationTitles();
  const items = useRef(new Map<string, HTMLButtonElement>());
  const heading = useRef<HTMLHeadingElement>(null);
  /** Where focus goes once the list has refreshed after a mark: an item's key, or the heading when none is left. */
  const focusNext = useRef<string | null | undefined>(undefined);

  const entry = entries.find((e) => itemKey(e) === chosen) ?? entries[0];
  const key = entry ? `${itemKey(entry)}#${entry.version}#${entry.reviewedVersion ?? ''}#${entry.kind}#${entry.conflict?.versions.join(',') ?? ''}` : '';
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
    (entries[0] ? items.current.get(itemKey(entries[0])) : heading.current)?.focus();
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
      const marks = items.map((e) => ({ path: e.path, version: e.version, ...(e.conflict ? { conflict: e.conflict.id } : {}) }));
      await call('reviewMark', { items: marks, ...(project ? { project } : {}) });
      setError(undefined);
      focusNext.current = after;
      if (after) setChosen(after);
      reviewMarked();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  // The version seen, not the listed one: a change landing while its diff loads must stay to review.
  const seen = entry && shown && itemKey(shown.entry) === itemKey(entry) && shown.entry.kind === entry.kind ? shown.entry : undefined;
  const markOne = (e: ReviewEntry) => {
    const i = entries.findIndex((x) => itemKey(x) === itemKey(e));
    const next = entries[i + 1] ?? entries[i - 1];
    void mark([e], next ? itemKey(next) : null);
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
            <li key={itemKey(e)}>
              <button
                ref={(el) => {
                  if (el) items.current.set(itemKey(e), el);
                  else items.current.delete(itemKey(e));
                }}
                aria-pressed={entry !== undefined && itemKey(entry) === itemKey(e)}
                onClick={() => setChosen(itemKey(e))}
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
            {entry.conflict ? (
              <ConflictFacts entry={entry} conflict={entry.conflict} />
            ) : (
              <p>
                <Writer by={entry.by} titles={titles} />
              </p>
            )}
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
              {/* Only an edit conflict has versions to merge; a delete that met an edit is answered by the actions above. */}
              {entry.conflict?.what === 'edit' && entry.conflict.versions.length > 0 && <button onClick={() => onOpenMerge(entry.path)}>{t('conflictMerge.open')}</button>}
              {entry.conflict && <button onClick={() => onOpenHistory(entry.path)}>{t('review.openHistory')}</button>}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
