import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { MemoryDraft } from '../../../electron/shared/drafts';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { saveMemoryDraft } from '../../lib/drafts';
import { keysOf } from '../../lib/shortcuts';
import { Editor } from './Editor';
import { merge3, mergedText, type Choice, type Merge3 } from '../../../electron/shared/merge3';
import { MergeView } from './MergeView';
import { ConflictMerge, type ConflictToMerge } from './ConflictMerge';
import { History } from './History';
import { isolatedPath, PathText } from './PathText';
import { RenameForm } from './RenameForm';
import { TransferForm } from './TransferForm';
import { useAskedMode } from './useReturnFocus';
import type { AskedMode } from './navigation';

interface Loaded {
  text: string;
  version: number;
  /** Bumped to give the editor a fresh document. */
  key: number;
  /** The text of `version`, the base of a three-way merge, when known (a restored draft may not know it). */
  base?: string | undefined;
}

/** A merge waiting for the user's choices: its regions, the stored version it merges with, and a choice per conflict. */
interface Merging {
  merge: Merge3;
  theirs: { text: string; version: number };
  choices: Array<Choice | undefined>;
}

/** A message over the editor: what happened to the file meanwhile, or what a save did (a version, a project's name). */
interface Notice {
  key:
    | 'editor.notice.deletedAfterKept'
    | 'editor.notice.deletedElsewhere'
    | 'editor.notice.claudeUpdated'
    | 'editor.notice.changedElsewhere'
    | 'editor.notice.savedMerged'
    | 'editor.notice.alreadyHolds'
    | 'editor.notice.theirsKept'
    | 'editor.notice.copied'
    | 'editor.notice.mergeSaved';
  version?: number;
  /** A project's name, chosen by the user: isolated when shown. */
  name?: string;
}

/** How many times in a row a save re-merges with a newer version before it gives up and says so (a writer racing every save). */
const MAX_REMERGES = 3;

/**
 * One open memory: edit, save (Ctrl/Cmd+S) with conflict detection, rename,
 * delete, history. Changes made elsewhere (by Claude) show up live; a save over
 * one merges three ways: changes to different lines are kept from both sides,
 * and where both changed the same lines the user chooses, per change. Nothing is
 * overwritten silently: the other version stays in history.
 */
export function EditorPane({
  path,
  project,
  request,
  restored,
  conflict,
  onDirty,
  onRenamed,
  onDeleted,
}: {
  path: string;
  /** The project whose memory `path` is in ('default': the first). */
  project: string;
  /** Rename or delete asked for from the tree (F2, Delete); `n` changes with each ask. */
  request?: { mode: AskedMode; n: number } | undefined;
  /** An unsaved edit a lock kept, offered back after unlock. */
  restored?: MemoryDraft | undefined;
  /** An edit conflict between computers this memory has, to merge (the Merge… button; `ask: 'merge'`). */
  conflict?: ConflictToMerge | undefined;
  onDirty: (dirty: boolean) => void;
  onRenamed: (to: string) => void;
  onDeleted: () => void;
}) {
  const { t } = useTranslation('memories');
  const [loaded, setLoaded] = useState<Loaded>();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<Notice>();
  const [merging, setMerging] = useState<Merging>();
  /** Focus goes back into the editor when it returns after a merge the user left or saved (once: not on later reloads). */
  const focusEditor = useRef(false);
  useEffect(() => {
    if (!merging) focusEditor.current = false;
  });
  const { mode, setMode, back, closeAsk } = useAskedMode<'edit' | 'history' | 'transfer', AskedMode>('edit', request, path);
  const keyCounter = useRef(0);
  /**
   * An edit to put back into the editor once, on top of the saved text it started from: a draft a lock kept,
   * or what was typed before the file was renamed (by Claude or by the user). `baseText`, when known, is the saved
   * text the edit started from: if the file still holds it, the edit starts from the file's current version.
   */
  const pendingRestore = useRef<{ text: string; baseVersion: number; baseText?: string } | undefined>(restored);
  /** The conflict being merged, fixed when the merge opens (the listed one may be settled meanwhile), and whether its result was typed in. */
  const [mergeWith, setMergeWith] = useState<ConflictToMerge>();
  const [mergeDirty, setMergeDirty] = useState(false);
  // Asked for (the button, or the review inbox): it stays open while History or Rename are used beside it, until saved or left.
  useEffect(() => {
    if (mode !== 'merge' || mergeWith) return;
    if (conflict) setMergeWith(conflict);
    else setMode('edit');
  }, [mode, conflict, mergeWith, setMode]);
  const endMerge = () => {
    focusEditor.current = true;
    setMergeWith(undefined);
    setMergeDirty(false);
    if (mode === 'merge') setMode('edit');
  };
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
      const stale = back !== undefined && back.baseText !== r.text;
      const base = !stale || back.baseVersion === r.version ? r.text : back.baseText;
      setLoaded({ ...r, version: stale ? back.baseVersion : r.version, base, key: ++keyCounter.current });
      setDraft(back ? back.text : r.text);
      setMerging(undefined);
      setError(undefined);
    } catch (e) {
      const back = pendingRestore.current;
      if (back && e instanceof ApiError && e.code === 'NOT_FOUND') {
        // The file, or its whole project, went while the edit was kept: the text is shown anyway, to save again or copy, and stays kept.
        pendingRestore.current = undefined;
        setLoaded({ text: '', version: back.baseVersion, base: back.baseText, key: ++keyCounter.current });
        setDraft(back.text);
        setNotice({ key: 'editor.notice.deletedAfterKept' });
      }
      setError(messageOf(e));
    }
  }, [path, project]);

  useEffect(() => {
    setNotice(undefined);
    void load();
  }, [path, load]);


  useEffect(() => {
    onDirty(dirty || mergeDirty);
  }, [dirty, mergeDirty, onDirty]);
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
          setNotice(c.source === 'user' ? undefined : { key: 'editor.notice.deletedElsewhere' });
          return;
        }
        if (c.op !== 'write' || c.path !== path || c.version === state.current.version) return;
        if (!state.current.dirty) {
          void load();
          setNotice(c.source === 'claude' ? { key: 'editor.notice.claudeUpdated' } : undefined);
        } else {
          setNotice({ key: 'editor.notice.changedElsewhere' });
        }
      }),
    [path, project, load, onRenamed],
  );

  /** The saved text `loaded.version` held: known, or read back from history (empty if it is gone, which makes every difference a choice). */
  const baseOf = useCallback(
    async (l: Loaded): Promise<string> => {
      if (l.base !== undefined) return l.base;
      if (l.version < 1) return '';
      return call('memoryReadVersion', { path, version: l.version, project }).then(
        (r) => r.text,
        () => '',
      );
    },
    [path, project],
  );

  /**
   * After a save (or a merge that kept their text as it is): the editor shows `text` as version `version`; with
   * `sameDoc` (the text is what the editor holds) it keeps its document, and so the cursor.
   */
  const settle = useCallback((text: string, version: number, message?: Notice, sameDoc = false) => {
    setLoaded((l) => ({ text, version, base: text, key: sameDoc && l ? l.key : ++keyCounter.current }));
    // The editor's own document is left alone: whatever was typed while the save was on its way stays, and unsaved.
    if (!sameDoc) setDraft(text);
    setMerging(undefined);
    setNotice(message);
    setError(undefined);
  }, []);

  /**
   * Writes `text` over `expected`; if another version came first, merges `text` (made from `base`) with it: clean
   * merges are saved at once, overlapping ones go to the merge view. The user asked to save, so a clean merge is saved.
   */
  const saveOver = useCallback(
    async (text: string, base: () => Promise<string>, expected: number, merged = 0): Promise<void> => {
      try {
        const meta = await call('memoryWrite', { path, text, mode: 'update', expectedVersion: expected, project });
        // A plain save keeps the editor as it is (the cursor stays where it was).
        if (merged === 0) settle(text, meta.version, undefined, true);
        else settle(text, meta.version, { key: 'editor.notice.savedMerged', version: meta.version });
      } catch (e) {
        try {
          if (e instanceof ApiError && e.code === 'CONFLICT' && merged < MAX_REMERGES) {
            const theirs = await call('memoryRead', { path, project });
            const merge = merge3(await base(), text, theirs.text);
            const clean = mergedText(merge);
            if (clean === theirs.text) return settle(theirs.text, theirs.version, { key: 'editor.notice.alreadyHolds', version: theirs.version });
            if (clean !== undefined) return await saveOver(clean, async () => theirs.text, theirs.version, merged + 1);
            setNotice(undefined);
            setMerging({ merge, theirs, choices: [] });
          } else if (e instanceof ApiError && e.code === 'NOT_FOUND') {
            const meta = await call('memoryWrite', { path, text, mode: 'create', project });
            settle(text, meta.version, undefined, merged === 0);
          } else throw e;
        } catch (err) {
          setError(messageOf(err));
        }
      }
    },
    [path, project, settle],
  );

  const save = useCallback(async () => {
    if (!loaded) return;
    const from = loaded;
    await saveOver(draft, () => baseOf(from), from.version);
  }, [loaded, draft, saveOver, baseOf]);

  const saveMerge = useCallback(async () => {
    if (!merging) return;
    const text = mergedText(merging.merge, merging.choices);
    if (text === undefined) return;
    focusEditor.current = true;
    if (text === merging.theirs.text) return settle(text, merging.theirs.version, { key: 'editor.notice.theirsKept', version: merging.theirs.version });
    // The merge is built on their version: another change that came meanwhile is merged with it the same way.
    await saveOver(text, async () => merging.theirs.text, merging.theirs.version, 1);
  }, [merging, saveOver, settle]);

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
      <div className="toolbar" role="toolbar" aria-label={t('editor.toolbar')}>
        <h2 className="file-title" title={isolatedPath(path)} data-user-text="">
          <PathText path={path} />
          {dirty && (
            <span className="unsaved" aria-label={t('editor.unsaved')} title={t('editor.unsaved')}>
              {' '}●
            </span>
          )}
        </h2>
        <button onClick={() => void save()} disabled={!dirty || merging !== undefined} title={merging ? t('editor.saveMergeFirst') : t('editor.saveTitle', { keys: keysOf('save') })}>
          {t('actions.save')}
        </button>
        <button
          onClick={() => {
            back.remember();
            setMode(mode === 'rename' ? 'edit' : 'rename');
          }}
        >
          {t('actions.rename')}
        </button>
        <button
          aria-pressed={mode === 'transfer'}
          disabled={dirty}
          title={dirty ? t('editor.saveFirst') : t('editor.moveOrCopyTitle')}
          onClick={() => {
            back.remember();
            setMode(mode === 'transfer' ? 'edit' : 'transfer');
          }}
        >
          {t('actions.moveOrCopy')}
        </button>
        <button aria-pressed={mode === 'history'} onClick={() => setMode(mode === 'history' ? 'edit' : 'history')}>
          {t('actions.history')}
        </button>
        {conflict && !mergeWith && (
          <button disabled={dirty} title={dirty ? t('editor.saveFirst') : t('conflictMerge.openTitle')} onClick={() => setMode('merge')}>
            {t('conflictMerge.open')}
          </button>
        )}
        {/* Set apart at the far end and drawn as destructive, so it is never hit in place of History. */}
        <button
          className="danger apart"
          onClick={() => {
            back.remember();
            setMode('delete');
          }}
        >
          {t('actions.delete')}
        </button>
      </div>
      {notice && (
        <p className="banner" role="status">
          <Trans t={t} i18nKey={notice.key} values={{ version: notice.version, name: notice.name }} components={[<bdi />]} />
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
            setNotice({ key: 'editor.notice.copied', name });
          }}
        />
      )}
      {mode === 'delete' && (
        <ConfirmDialog label={t('editor.deleteLabel', { path })} onCancel={closeAsk}>
          <p>
            <Trans t={t} i18nKey="editor.deleteQuestion" components={[<PathText path={path} />]} />
          </p>
          <button className="danger" onClick={() => void remove()}>
            {t('actions.delete')}
          </button>
          <button data-cancel onClick={closeAsk}>
            {t('actions.cancel')}
          </button>
        </ConfirmDialog>
      )}
      <div className="editor-and-history">
        {mergeWith ? (
          <ConflictMerge
            path={path}
            project={project}
            conflict={mergeWith}
            onDirty={setMergeDirty}
            onSaved={(text, version) => {
              endMerge();
              settle(text, version, { key: 'editor.notice.mergeSaved', version });
            }}
            onClose={endMerge}
          />
        ) : merging ? (
          <MergeView
            merge={merging.merge}
            theirsVersion={merging.theirs.version}
            choices={merging.choices}
            onChoose={(i, choice) => setMerging((m) => m && { ...m, choices: Object.assign([...m.choices], { [i]: choice }) })}
            onSave={() => void saveMerge()}
            onCancel={() => {
              // The user's text is untouched (it is still the draft); saving again merges again.
              focusEditor.current = true;
              setMerging(undefined);
            }}
          />
        ) : (
          <Editor docKey={`${path}#${loaded.key}`} text={draft} onChange={setDraft} onSave={() => void save()} focusOnMount={focusEditor.current} />
        )}
        {mode === 'history' && <History path={path} project={project} current={loaded.text} onRestored={() => void load()} />}
      </div>
    </div>
  );
}
