import { useEffect, useRef, useState } from 'react';
import type { ReviewEntry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { describeWriter, useConversationTitles } from './provenance';
import { reviewMarked, reviewWords } from './ReviewCount';
import { ReviewDiff } from './ReviewDiff';
import './PaneTitle.css';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The two texts a change is shown as: the reviewed one (or nothing) and the one to review (or nothing, once deleted). */
async function texts(e: ReviewEntry, project: string | undefined): Promise<{ before: string; after: string }> {
  const read = async (version: number) => (await call('memoryReadVersion', { path: e.path, version, ...(project ? { project } : {}) })).text;
  if (e.kind === 'deleted') return { before: await read(e.version), after: '' };
  return { before: e.reviewedVersion !== undefined ? await read(e.reviewedVersion) : '', after: await read(e.version) };
}

/** Puts focus on the trash's entry for `path` once the trash shows it (it renders a few frames after it opens). */
function focusTrashEntry(path: string, frames = 120): void {
  const buttons = document.querySelectorAll<HTMLButtonElement>('section[aria-label="Trash"] .trash-list button');
  const button = [...buttons].find((b) => b.querySelector('.path')?.textContent === path);
  if (button) return button.focus();
  if (frames > 0) requestAnimationFrame(() => focusTrashEntry(path, frames - 1));
}

function diffLabel(e: ReviewEntry): string {
  if (e.kind === 'deleted') return `Text of ${e.path} when it was deleted`;
  if (e.reviewedVersion !== undefined) return `Changes since version ${e.reviewedVersion}, which you reviewed`;
  // A change with no earlier version kept must not pass its whole text off as the change.
  return e.kind === 'changed' ? `Whole text of version ${e.version}: the versions before it are no longer kept` : `Text of version ${e.version}`;
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
          To review
        </h2>
        <button disabled={entries.length === 0} onClick={() => void mark(entries, null)}>
          Mark all reviewed
        </button>
      </div>
      <ErrorText message={error ?? listError} />
      <div className="trash-body">
        {entries.length === 0 && <p className="empty">Nothing to review: you have seen every change Claude made to this memory.</p>}
        <ul className="trash-list" aria-label="Changes to review">
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
                <span className="path">{e.path}</span>
                <span className="meta"> · {reviewWords(e)}</span>
              </button>
            </li>
          ))}
        </ul>
        {entry && (
          <div className="review-detail">
            {/* The list above names the file (its button is pressed); the heading says what happened to it, and names the file to screen readers only. */}
            <h3 className="review-what">
              <span className="sr-only">{entry.path}: </span>
              <span>
                {capital(reviewWords(entry).replace(/, not reviewed$/, ''))}
                {entry.from ? ` (from ${entry.from})` : ''} · version {entry.version}
              </span>
            </h3>
            <p>{describeWriter(entry.by, titles)}</p>
            {shown?.key === key ? <ReviewDiff key={key} before={shown.before} after={shown.after} label={diffLabel(entry)} /> : <p className="empty">Loading the change…</p>}
            <div className="row">
              <button disabled={!seen} onClick={() => seen && markOne(seen)}>
                Mark reviewed
              </button>
              {entry.kind === 'deleted' ? <button
                  onClick={() => {
                    onOpenTrash();
                    focusTrashEntry(entry.path);
                  }}
                >
                  Open the trash
                </button> : <button onClick={() => onOpen(entry.path)}>Open in editor</button>}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
