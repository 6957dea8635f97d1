import { useCallback, useEffect, useRef, useState } from 'react';
import type { MemoryDraft } from '../../../electron/shared/drafts';
import type { Entry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf, on } from '../../lib/api';
import { EditorPane } from './EditorPane';
import { FolderPane } from './FolderPane';
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

  const open = (path: string) => {
    if (path === selected) return;
    if (dirty.current && !window.confirm('Discard your unsaved changes to this memory?')) return;
    dirty.current = false;
    setSelected(path);
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
      <div className="sidebar">
        <div className="row">
          <button onClick={() => setCreating('file')}>New memory</button>
          <button onClick={() => setCreating('dir')}>New folder</button>
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
          <Tree entries={entries} selected={selected} onSelect={(e) => open(e.path)} />
        )}
      </div>
      <div className="main-pane">
        {selected && entries.find((e) => e.path === selected)?.kind === 'dir' ? (
          <FolderPane
            key={selected}
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
