import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MemoryDraft } from '../../../electron/shared/drafts';
import { Chevron } from '../../components/Chevron';
import { ErrorText } from '../../components/ErrorText';
import '../../components/PrimaryButton.css';
import { call, messageOf } from '../../lib/api';
import { useLiveSearch } from '../../lib/use-live-search';
import { MemoryHits } from './MemoryHits';
import { focusWhenReady } from '../../lib/focus';
import { EditorPane } from './EditorPane';
import { FolderPane } from './FolderPane';
import { DiscardDialog, useMemoryNavigation, type MemoryTarget } from './navigation';
import { FIRST_PROJECT, useMemoryTree, useProjects } from './projects';
import { Splitter, usePaneSize } from './Splitter';
import { TrashPane } from './TrashPane';
import { ReviewPane } from './ReviewPane';
import { useReviewList } from './ReviewCount';
import { Tree } from './Tree';

type Hit = { path: string; line: number; snippet: string; marks?: Array<[number, number]> | undefined };
export type { MemoryTarget };

/** Browse, search, create and edit the memories of any project (picked here). The tree follows every change live. */
export function MemoriesView({ active, goTo, restored }: { active: boolean; goTo?: (MemoryTarget & { n: number }) | undefined; restored?: MemoryDraft | undefined }) {
  const { t } = useTranslation('memories');
  // Which project's memory is shown; every call below acts on it.
  const { project, selected, setSelected, ask: request, leaving, setLeaving, dirty, opened, apply, go: navigate } = useMemoryNavigation({ project: goTo?.project ?? FIRST_PROJECT, path: goTo?.path }, (_t, projectChanged) => {
    if (projectChanged) setError(undefined);
  });
  const [projects, reloadProjects] = useProjects(active);
  const { entries, error: listError, refresh } = useMemoryTree(project);
  const [creating, setCreating] = useState<'file' | 'dir'>();
  const [newPath, setNewPath] = useState('/memories/');
  // Opening a hit shows it in the tree; the hits stay one button away (a new query shows them again).
  const [hitsShown, setHitsShown] = useState(true);
  // Shown and focused in the tree: a hit opened (its button is gone), a folder created (the form is gone).
  const [reveal, setReveal] = useState<{ path: string; n: number }>();
  const showInTree = (path: string) => setReveal((r) => ({ path, n: (r?.n ?? 0) + 1 }));
  const [error, setError] = useState<string>();
  // Search as you type, in the project shown (a project change asks again); an empty box shows the tree.
  const searchBox = useRef<HTMLInputElement>(null);
  const search = useLiveSearch<Hit>((query) => call('memorySearch', { query, project }), project);
  // Layout: the list pane's width and whether it is shown; the trash in place of the editor; a pane action asked for from the tree (F2, Delete).
  const [listSize, setListSize] = usePaneSize('list', 304, 180, 560);
  const [listShown, setListShown] = useState(true);
  const listToggleRef = useRef<HTMLButtonElement>(null);
  /** Set when the user toggled the list: its toggle moves (into the list, or out of it) and keeps the focus. */
  const listToggled = useRef(false);
  const toggleList = () => {
    listToggled.current = true;
    setListShown(!listShown);
  };
  useEffect(() => {
    if (listToggled.current) listToggleRef.current?.focus();
    listToggled.current = false;
  }, [listShown]);
  const [trashOpen, setTrashOpen] = useState(false);
  const [reviewOpen, setReviewOpen] = useState(false);
  const review = useReviewList(project);

  /** Goes to a project and file; with unsaved changes to the open memory it asks first. False when it did not go (yet). */
  const go = (t: MemoryTarget): boolean => {
    setTrashOpen(false);
    setReviewOpen(false);
    return navigate(t);
  };
  const goRef = useRef(go);
  goRef.current = go;
  // "Open in editor" or a restored draft: this view stays mounted, so an unsaved edit here must be asked about first.
  useEffect(() => {
    if (goTo) goRef.current({ project: goTo.project, path: goTo.path });
  }, [goTo]);
  useEffect(() => {
    const guard = (e: BeforeUnloadEvent) => {
      if (dirty.current) e.preventDefault();
    };
    window.addEventListener('beforeunload', guard);
    return () => window.removeEventListener('beforeunload', guard);
  }, []);

  const open = (path: string): boolean => go({ project, path });
  const ask = (path: string, mode: 'rename' | 'delete') => void go({ project, path, ask: mode });

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      const path = newPath.trim();
      if (creating === 'dir') await call('memoryMkdir', { path, project });
      else await call('memoryWrite', { path, text: '', mode: 'create', project });
      setCreating(undefined);
      setNewPath('/memories/');
      setError(undefined);
      refresh();
      // A new file opens in the editor; a new folder is shown in the tree (opened, focused), the editor left as it was.
      if (creating === 'file') open(path);
      else showInTree(path);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const toReview = review.entries?.length ?? 0;
  // An edit conflict of the open memory with a version set aside still kept: what its Merge… button merges.
  const conflict = review.entries?.find((e) => e.path === selected && e.conflict?.what === 'edit' && e.conflict.versions.length > 0)?.conflict;
  const listToggle = (
    <button ref={listToggleRef} className="pane-toggle" aria-expanded={listShown} aria-controls="memory-list" onClick={toggleList} title={listShown ? t('view.hideList') : t('view.showList')}>
      {/* Shown: pointing toward the list it folds away (the start side); hidden: toward where it comes back. */}
      <Chevron />
      <span className="spoken">{listShown ? t('view.hideList') : t('view.showList')}</span>
    </button>
  );

  return (
    <div className="memories">
      {/* Hidden, the list leaves only its toggle; shown, the toggle ends the project picker's row instead of taking a column of its own. */}
      {!listShown && listToggle}
      <div className="sidebar memory-list" id="memory-list" hidden={!listShown} style={{ '--pane-w': `${listSize}px` } as React.CSSProperties}>
        <div className="project-picker">
          <label htmlFor="memory-project">{t('project.label')}</label>
          <div className="list-head">
            <select id="memory-project" value={project} onFocus={reloadProjects} onChange={(e) => void go({ project: e.target.value })}>
              {projects?.map((p) => (
                // A name the user chose: isolated, so a right-to-left one reads right.
                <option key={p.id} value={p.id} dir="auto">
                  {p.name}
                </option>
              ))}
              {!projects?.some((p) => p.id === project) && <option value={project}>{projects ? t('project.deleted') : t('project.loading')}</option>}
            </select>
            {listShown && listToggle}
          </div>
        </div>
        {/* New memory is the list's action; the rest are quiet text buttons. The count of changes to review shows only when there are some. */}
        <div className="row memory-actions">
          <button onClick={() => setCreating('file')}>{t('actions.newMemory')}</button>
          <button className="quiet" onClick={() => setCreating('dir')}>
            {t('actions.newFolder')}
          </button>
          {/* Making things on the first line, the places to go (to review, trash) on the next. */}
          <span className="break" />
          <button className="quiet" aria-pressed={reviewOpen} onClick={() => (setReviewOpen(!reviewOpen), setTrashOpen(false))}>
            {t('review.title')}
            {toReview > 0 && (
              <>
                {' '}
                <span className="tab-count">{toReview}</span>
              </>
            )}
          </button>
          <button className="quiet" aria-pressed={trashOpen} onClick={() => (setTrashOpen(!trashOpen), setReviewOpen(false))}>
            {t('actions.trash')}
          </button>
        </div>
        {creating && (
          <form className="inline-form" onSubmit={create}>
            <label>
              {creating === 'file' ? t('create.fileLabel') : t('create.folderLabel')}
              <input value={newPath} onChange={(e) => setNewPath(e.target.value)} autoFocus />
            </label>
            <button type="submit">{t('actions.create')}</button>
            <button type="button" onClick={() => setCreating(undefined)}>
              {t('actions.cancel')}
            </button>
          </form>
        )}
        <form role="search" onSubmit={(e) => e.preventDefault()}>
          {/* Follows the direction of what is typed: an Arabic or Hebrew query reads right to left. */}
          <input ref={searchBox} type="search" dir="auto" aria-label={t('search.label')} placeholder={t('search.label')} value={search.query} onChange={(e) => (search.setQuery(e.target.value), setHitsShown(true))} />
        </form>
        <ErrorText message={error ?? search.error ?? listError} />
        {search.query.trim() && hitsShown ? (
          <MemoryHits
            query={search.query.trim()}
            answer={search.answer}
            pending={search.pending}
            onOpen={(path) => {
              setHitsShown(false);
              // Asked first when the open memory has unsaved changes: focus then stays with that question.
              const went = open(path);
              if (went) showInTree(path);
              return went;
            }}
            onBack={() => (search.clear(), searchBox.current?.focus())}
          />
        ) : (
          search.query.trim() &&
          search.answer && (
            <button
              className="link"
              onClick={() => {
                setHitsShown(true);
                focusWhenReady('#memory-list .hits button');
              }}
            >
              {t('search.backToResults', { total: search.answer.items.length })}
            </button>
          )
        )}
        {/* Kept while the hits are shown, so the folders opened and the place scrolled to are still there after. */}
        <Tree
          key={project}
          hidden={Boolean(search.query.trim() && hitsShown)}
          entries={entries}
          review={review.entries}
          selected={selected}
          reveal={reveal}
          onSelect={(e) => open(e.path)}
          onRename={(e) => ask(e.path, 'rename')}
          onDelete={(e) => ask(e.path, 'delete')}
        />
      </div>
      {listShown && <Splitter label={t('view.resizeList')} controls="memory-list" value={listSize} min={180} max={560} onChange={setListSize} edge="end" />}
      <div className="main-pane">
        {leaving && <DiscardDialog onKeep={() => setLeaving(undefined)} onDiscard={() => apply(leaving)} />}
        {reviewOpen ? (
          <ReviewPane key={project} project={project} entries={review.entries ?? []} listError={review.error} onOpen={open} onOpenHistory={(path) => void go({ project, path, ask: 'history' })} onOpenMerge={(path) => void go({ project, path, ask: 'merge' })} onOpenTrash={() => (setReviewOpen(false), setTrashOpen(true))} />
        ) : trashOpen ? (
          <TrashPane
            key={project}
            project={project}
            onRestored={(path) => {
              refresh();
              open(path);
            }}
          />
        ) : selected && entries.find((e) => e.path === selected)?.kind === 'dir' ? (
          <FolderPane
            key={`${project}:${selected}`}
            request={request}
            path={selected}
            project={project}
            count={entries.filter((e) => e.path.startsWith(selected + '/')).length}
            onRenamed={(to) => {
              setSelected(to);
              refresh();
            }}
            onDeleted={() => {
              setSelected(undefined);
              refresh();
            }}
          />
        ) : selected ? (
          <EditorPane
            key={`${project}:${opened}`}
            request={request}
            path={selected}
            project={project}
            restored={restored?.path === selected && (restored.project ?? FIRST_PROJECT) === project ? restored : undefined}
            conflict={conflict}
            onDirty={(d) => (dirty.current = d)}
            onRenamed={(to) => {
              // Still unsaved if it was: the editor stays, with the typed text, under the new path.
              setSelected(to);
              refresh();
            }}
            onDeleted={() => {
              dirty.current = false;
              setSelected(undefined);
              refresh();
            }}
          />
        ) : (
          <p className="empty">{t('view.chooseMemory')}</p>
        )}
      </div>
    </div>
  );
}
