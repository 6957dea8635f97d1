import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { MemoryDraft } from '../../../electron/shared/drafts';
import { Diff } from '../../components/Diff';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { saveMemoryDraft } from '../../lib/drafts';
import { Editor } from './Editor';
import { History } from './History';
import { RenameForm } from './RenameForm';
import { TransferForm } from './TransferForm';
import { useAskedMode } from './useReturnFocus';

interface Loaded {
  text: string;
  version: number;
  /** Bumped to give the editor a fresh document. */
  key: number;
}

/**
 * One open memory: edit, save (Ctrl/Cmd+S) with conflict detection, rename,
 * delete, history. Changes made elsewhere (by Claude) show up live; a save over
 * one shows both versions and lets the user choose — nothing is overwritten silently.
 */
export function EditorPane({
  path,
  project,
  request,
  restored,
  onDirty,
  onRenamed,
  onDeleted,
}: {
  path: string;
  /** The project whose memory `path` is in ('default': the first). */
  project: string;
  /** Rename or delete asked for from the tree (F2, Delete); `n` changes with each ask. */
  request?: { mode: 'rename' | 'delete'; n: number } | undefined;
  /** An unsaved edit a lock kept, offered back after unlock. */
  restored?: MemoryDraft | undefined;
  onDirty: (dirty: boolean) => void;
  onRenamed: (to: string) => void;
  onDeleted: () => void;
}) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [conflict, setConflict] = useState<{ text: string; version: number }>();
  const { mode, setMode, back, closeAsk } = useAskedMode<'edit' | 'history' | 'transfer'>('edit', request, path);
  const keyCounter = useRef(0);
  /**
   * An edit to put back into the editor once, on top of the saved text it started from: a draft a lock kept,
   * or what was typed before the file was renamed (by Claude or by the user). `baseText`, when known, is the saved
   * text the edit started from: if the file still holds it, the edit starts from the file's current version.
   */
  const pendingRestore = useRef<{ text: string; baseVersion: number; baseText?: string } | undefined>(restored);
  const dirty = loaded !== undefined && draft !== loaded.text;
  const state = useRef({ dirty, version: loaded?.version ?? 0, draft, text: loaded?.text });
  state.current = { dirty, version: loaded?.version ?? 0, draft, text: loaded?.text };
  // The path this editor last loaded: a new one while mounted is the same file renamed, so the typed text moves with it.
  const shownPath = useRef(path);
  if (shownPath.current !== path) {
    shownPath.current = path;
    const now = state.current;
    if (now.dirty && !pendingRestore.current) pendingRestore.current = { text: now.draft, baseVersion: now.version, ...(now.text !== undefined ? { baseText: now.text } : {}) };
  }

  const load = useCallback(async () => {
    try {
      const r = await call('memoryRead', { path, project });
      const back = pendingRestore.current;
      pendingRestore.current = undefined;
      // A restored edit keeps the version it started from, so saving it over a newer change shows both instead of overwriting.
      const version = back && back.baseText !== r.text ? back.baseVersion : r.version;
      setLoaded({ ...r, version, key: ++keyCounter.current });
      setDraft(back ? back.text : r.text);
      setConflict(undefined);
      setError(undefined);
    } catch (e) {
      const back = pendingRestore.current;
      if (back && e instanceof ApiError && e.code === 'NOT_FOUND') {
        // The file, or its whole project, went while the edit was kept: the text is shown anyway, to save again or copy, and stays kept.
        pendingRestore.current = undefined;
        setLoaded({ text: '', version: back.baseVersion, key: ++keyCounter.current });
        setDraft(back.text);
        setNotice('This memory (or its project) was deleted after your edit was kept. Your text is below: save to create it again, or copy it.');
      }
      setError(messageOf(e));
    }
  }, [path, project]);

  useEffect(() => {
    setNotice(undefined);
    void load();
  }, [path, load]);


  useEffect(() => {
    onDirty(dirty);
  }, [dirty, onDirty]);
  // Leaving the file (after the user agreed to drop the edit) drops its draft too.
  const owner = useId();
  useEffect(() => () => saveMemoryDraft(owner, null), [owner]);
  // Main keeps the unsaved edit (with its project), so a lock (even one main starts when idle) does not lose it.
  useEffect(() => {
    saveMemoryDraft(owner, dirty && loaded ? { path, text: draft, baseVersion: loaded.version, project } : null);
  }, [owner, dirty, draft, path, project, loaded]);

  useEffect(
    () =>
      on('memoryChanged', (c) => {
        // The same path in another project is another file.
        if ((c.project ?? 'default') !== project) return;
        // This file renamed, or a folder it is in: either way the open file now lives at the new path.
        if (c.op === 'rename' && c.newPath && (c.path === path || path.startsWith(c.path + '/'))) return onRenamed(c.newPath + path.slice(c.path.length));
        if (c.op === 'delete' && (c.path === path || path.startsWith(c.path + '/'))) {
          setNotice(c.source === 'user' ? undefined : 'This memory was deleted elsewhere. Save to keep your copy.');
          return;
        }
        if (c.op !== 'write' || c.path !== path || c.version === state.current.version) return;
        if (!state.current.dirty) {
          void load();
          setNotice(c.source === 'claude' ? 'Claude just updated this memory.' : undefined);
        } else {
          setNotice('This memory was changed elsewhere while you were editing. Saving will show both versions.');
        }
      }),
    [path, project, load, onRenamed],
  );

  const save = useCallback(
    async (force?: number) => {
      if (!loaded) return;
      try {
        const meta = await call('memoryWrite', { path, text: draft, mode: 'update', expectedVersion: force ?? loaded.version, project });
        setLoaded({ text: draft, version: meta.version, key: loaded.key });
        setConflict(undefined);
        setNotice(undefined);
        setError(undefined);
      } catch (e) {
        if (e instanceof ApiError && e.code === 'CONFLICT') {
          const theirs = await call('memoryRead', { path, project });
          setConflict(theirs);
        } else if (e instanceof ApiError && e.code === 'NOT_FOUND') {
          await call('memoryWrite', { path, text: draft, mode: 'create', project }).then(
            (meta) => (setLoaded({ text: draft, version: meta.version, key: loaded.key }), setError(undefined)),
            (err: unknown) => setError(messageOf(err)),
          );
          setNotice(undefined);
        } else setError(messageOf(e));
      }
    },
    [loaded, draft, path, project],
  );

  const remove = async () => {
    try {
      await call('memoryDelete', { path, project });
      onDeleted();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  if (!loaded) return <ErrorText message={error} />;
  return (
    <div className="editor-pane">
      <div className="toolbar" role="toolbar" aria-label="Memory actions">
        <h2 className="file-title" title={path}>
          {path}
          {dirty && (
            <span className="unsaved" aria-label="Unsaved changes" title="Unsaved changes">
              {' '}●
            </span>
          )}
        </h2>
        <button onClick={() => void save()} disabled={!dirty} title="Save (Ctrl+S)">
          Save
        </button>
        <button
          onClick={() => {
            back.remember();
            setMode(mode === 'rename' ? 'edit' : 'rename');
          }}
        >
          Rename
        </button>
        <button
          aria-pressed={mode === 'transfer'}
          disabled={dirty}
          title={dirty ? 'Save or undo your changes first' : 'Move or copy this memory to another project'}
          onClick={() => {
            back.remember();
            setMode(mode === 'transfer' ? 'edit' : 'transfer');
          }}
        >
          Move or copy…
        </button>
        <button aria-pressed={mode === 'history'} onClick={() => setMode(mode === 'history' ? 'edit' : 'history')}>
          History
        </button>
        {/* Set apart at the far end and drawn as destructive, so it is never hit in place of History. */}
        <button
          className="danger apart"
          onClick={() => {
            back.remember();
            setMode('delete');
          }}
        >
          Delete
        </button>
      </div>
      {notice && (
        <p className="banner" role="status">
          {notice}
        </p>
      )}
      <ErrorText message={error} />
      {mode === 'rename' && <RenameForm path={path} project={project} onRenamed={onRenamed} onCancel={closeAsk} onError={setError} />}
      {mode === 'transfer' && (
        <TransferForm
          path={path}
          project={project}
          onCancel={closeAsk}
          onError={setError}
          onDone={(how, name) => {
            if (how === 'move') return onDeleted();
            closeAsk();
            setError(undefined);
            setNotice(`Copied to ${name}.`);
          }}
        />
      )}
      {mode === 'delete' && (
        <ConfirmDialog label={`Delete ${path}`} onCancel={closeAsk}>
          <p>Delete {path}? It moves to the trash (under Memories), where it can be restored until the trash is emptied.</p>
          <button className="danger" onClick={() => void remove()}>
            Delete
          </button>
          <button data-cancel onClick={closeAsk}>
            Cancel
          </button>
        </ConfirmDialog>
      )}
      {conflict && (
        // Escape or "Keep editing" closes it with nothing saved and the edit kept.
        <ConfirmDialog label="This memory changed since you opened it" className="conflict" onCancel={() => setConflict(undefined)}>
          <p>This memory changed since you opened it (now version {conflict.version}). Here is how your text differs from the saved one:</p>
          <Diff before={conflict.text} after={draft} label="Saved version compared with yours" />
          <button onClick={() => void save(conflict.version)}>Keep mine</button>
          <button
            onClick={() => {
              setLoaded({ ...conflict, key: ++keyCounter.current });
              setDraft(conflict.text);
              setConflict(undefined);
              setNotice(undefined);
            }}
          >
            Take theirs
          </button>
          <button data-cancel onClick={() => setConflict(undefined)}>
            Keep editing
          </button>
        </ConfirmDialog>
      )}
      <div className="editor-and-history">
        <Editor docKey={`${path}#${loaded.key}`} text={draft} onChange={setDraft} onSave={() => void save()} />
        {mode === 'history' && <History path={path} project={project} current={loaded.text} onRestored={() => void load()} />}
      </div>
    </div>
  );
}
