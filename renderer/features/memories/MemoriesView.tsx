import { useCallback, useEffect, useRef, useState } from 'react';
import type { MemoryDraft } from '../../../electron/shared/drafts';
import type { Entry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf, on } from '../../lib/api';
import { EditorPane } from './EditorPane';
import { FolderPane } from './FolderPane';
import { Splitter, usePaneSize } from './Splitter';
import { TrashPane } from './TrashPane';
import { ReviewPane } from './ReviewPane';
import { useReviewList } from './ReviewCount';
import { Tree } from './Tree';

type Hit = { path: string; line: number; snippet: string };

/** Browse, search, create and edit memories. The tree follows every change live. */
export function MemoriesView({ initialPath, openRequest, restored }: { initialPath: string | undefined; openRequest?: number | undefined; restored?: MemoryDraft | undefined }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [selected, setSelected] = useState<string | undefined>(initialPath);
  const [creating, setCreating] = useState<'file' | 'dir'>();
  const [newPath, setNewPath] = useState('/memories/');
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Hit[]>();
  const [error, setError] = useState<string>();
  const dirty = useRef(false);
  // Layout: the list pane's width and whether it is shown; the trash in place of the editor; a pane action asked for from the tree (F2, Delete).
  const [listSize, setListSize] = usePaneSize('list', 272, 180, 560);
  const [listShown, setListShown] = useState(true);
  const [trashOpen, setTrashOpen] = useState(false);
  const [reviewOpen, setReviewOpen] = useState(false);
  const review = useReviewList();
  const [request, setRequest] = useState<{ mode: 'rename' | 'delete'; n: number }>();

  const refresh = useCallback(() => {
    call('memoryList').then(setEntries, (e: unknown) => setError(messageOf(e)));
  }, []);
  useEffect(() => {
    refresh();
    return on('memoryChanged', refresh);
  }, [refresh]);
  // "Open in editor" from the chat: this view stays mounted, so an unsaved edit here must be asked about first.
  useEffect(() => {
    if (!initialPath) return;
    setSelected((current) => {
      if (current === initialPath) return current;
      if (dirty.current && !window.confirm('Discard your unsaved changes to this memory?')) return current;
      dirty.current = false;
      return initialPath;
    });
  }, [initialPath, openRequest]);
  useEffect(() => {
    const guard = (e: BeforeUnloadEvent) => {
      if (dirty.current) e.preventDefault();
    };
    window.addEventListener('beforeunload', guard);
    return () => window.removeEventListener('beforeunload', guard);
  }, []);

  const open = (path: string): boolean => {
    setTrashOpen(false);
    setReviewOpen(false);
    if (path === selected) return true;
    if (dirty.current && !window.confirm('Discard your unsaved changes to this memory?')) return false;
    dirty.current = false;
    setRequest(undefined);
    setSelected(path);
    return true;
  };
  const ask = (path: string, mode: 'rename' | 'delete') => {
    if (open(path)) setRequest((r) => ({ mode, n: (r?.n ?? 0) + 1 }));
  };

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      const path = newPath.trim();
      if (creating === 'dir') await call('memoryMkdir', { path });
      else await call('memoryWrite', { path, text: '', mode: 'create' });
      setCreating(undefined);
      setNewPath('/memories/');
      setError(undefined);
      refresh();
      if (creating === 'file') open(path);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const search = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return setHits(undefined);
    try {
      setHits(await call('memorySearch', { query: query.trim() }));
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <div className="memories">
      <button className="pane-toggle" aria-expanded={listShown} aria-controls="memory-list" onClick={() => setListShown(!listShown)} title={listShown ? 'Hide memory list' : 'Show memory list'}>
        <span aria-hidden="true">{listShown ? '⟨' : '⟩'}</span>
        <span className="spoken">{listShown ? 'Hide memory list' : 'Show memory list'}</span>
      </button>
      <div className="sidebar memory-list" id="memory-list" hidden={!listShown} style={{ '--pane-w': `${listSize}px` } as React.CSSProperties}>
        <div className="row">
          <button onClick={() => setCreating('file')}>New memory</button>
          <button onClick={() => setCreating('dir')}>New folder</button>
          <button aria-pressed={trashOpen} onClick={() => (setTrashOpen(!trashOpen), setReviewOpen(false))}>
            Trash
          </button>
          <button aria-pressed={reviewOpen} onClick={() => (setReviewOpen(!reviewOpen), setTrashOpen(false))}>
            To review ({review.entries?.length ?? 0})
          </button>
        </div>
        {creating && (
          <form className="inline-form" onSubmit={create}>
            <label>
              {creating === 'file' ? 'Path of the new memory' : 'Path of the new folder'}
              <input value={newPath} onChange={(e) => setNewPath(e.target.value)} autoFocus />
            </label>
            <button type="submit">Create</button>
            <button type="button" onClick={() => setCreating(undefined)}>
              Cancel
            </button>
          </form>
        )}
        <form role="search" onSubmit={search}>
          <input type="search" aria-label="Search memories" placeholder="Search memories" value={query} onChange={(e) => setQuery(e.target.value)} />
        </form>
        <ErrorText message={error} />
        {hits ? (
          <ul className="hits" aria-label="Search results">
            {hits.length === 0 && <li>No memory contains “{query}”.</li>}
            {hits.map((h) => (
              <li key={`${h.path}:${h.line}`}>
                <button onClick={() => open(h.path)}>
                  {h.path}
                  {h.line ? `:${h.line}` : ''} <span className="snippet">{h.snippet}</span>
                </button>
              </li>
            ))}
            <li>
              <button onClick={() => setHits(undefined)}>Back to all memories</button>
            </li>
          </ul>
        ) : (
          <Tree entries={entries} review={review.entries} selected={selected} onSelect={(e) => open(e.path)} onRename={(e) => ask(e.path, 'rename')} onDelete={(e) => ask(e.path, 'delete')} />
        )}
      </div>
      {listShown && <Splitter label="Resize memory list" controls="memory-list" value={listSize} min={180} max={560} onChange={setListSize} edge="end" />}
      <div className="main-pane">
        {reviewOpen ? (
          <ReviewPane entries={review.entries ?? []} listError={review.error} onOpen={open} onOpenTrash={() => (setReviewOpen(false), setTrashOpen(true))} />
        ) : trashOpen ? (
          <TrashPane
            onRestored={(path) => {
              refresh();
              open(path);
            }}
          />
        ) : selected && entries.find((e) => e.path === selected)?.kind === 'dir' ? (
          <FolderPane
            key={selected}
            request={request}
            path={selected}
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
            key={selected}
            request={request}
            path={selected}
            restored={restored?.path === selected ? restored : undefined}
            onDirty={(d) => (dirty.current = d)}
            onRenamed={(to) => {
              dirty.current = false;
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
          <p className="empty">Choose a memory to read or edit it.</p>
        )}
      </div>
    </div>
  );
}
