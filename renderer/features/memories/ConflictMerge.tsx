import { markdown } from '@codemirror/lang-markdown';
import { goToNextChunk, goToPreviousChunk, MergeView } from '@codemirror/merge';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import type { TFunction } from 'i18next';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { merge3, mergedText } from '../../../electron/shared/merge3';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { saveMemoryDraft } from '../../lib/drafts';
import { changeListener, essentials, phrases, saveKeymap } from './Editor';
import { DiscardDialog } from './navigation';
import './ConflictMerge.css';

/** An edit conflict between computers, as the review inbox lists it: the versions set aside, and their common base when kept. */
export interface ConflictToMerge {
  versions: number[];
  base?: number | undefined;
}

/** A text the result can be compared with: a version set aside, the common base, or the version kept. */
interface Side {
  kind: 'aside' | 'base' | 'kept';
  version: number;
  text: string;
}

/** What happened to the memory while the merge was open: a newer version, or a delete. */
type Meanwhile = { version: number } | { deleted: true };

/** Past this long a detailed diff gives up for a coarser one, so a huge or very different memory keeps the window responsive. */
const DIFF_MS = 300;

const SIDE = { aside: 'conflictMerge.side.aside', base: 'conflictMerge.side.base', kept: 'conflictMerge.side.kept' } as const;
const sideLabel = (t: TFunction<'memories'>, s: Side) => t(SIDE[s.kind], { version: s.version });

/**
 * The merge view's own button between the panes (CodeMirror's reacts to the mouse only): Enter or Space takes the
 * change too, so a keyboard user can use every one of them.
 */
function takeButton(label: string): () => HTMLElement {
  return () => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = '⇝';
    b.title = label;
    b.setAttribute('aria-label', label);
    b.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      b.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true }));
    });
    return b;
  };
}

/** Replaces the result's lines of the change at its cursor with the compared text's lines (what the buttons between the panes do). */
function takeAtCursor(mv: MergeView): boolean {
  const { a, b } = mv;
  const pos = b.state.selection.main.head;
  const chunk = mv.chunks.find((c) => pos >= c.fromB && pos <= c.endB);
  if (!chunk) return false;
  let insert = a.state.sliceDoc(chunk.fromA, Math.max(chunk.fromA, chunk.toA - 1));
  if (chunk.fromA !== chunk.toA && chunk.toB <= b.state.doc.length) insert += b.state.lineBreak;
  b.dispatch({ changes: { from: chunk.fromB, to: Math.min(b.state.doc.length, chunk.toB), insert }, userEvent: 'revert' });
  return true;
}

/** Which change (1…) the result's cursor is in, and how many there are. */
function chunkAtCursor(mv: MergeView): { n: number; total: number } {
  const pos = mv.b.state.selection.main.head;
  return { n: mv.chunks.findIndex((c) => pos >= c.fromB && pos <= c.endB) + 1, total: mv.chunks.length };
}

/**
 * Merges an edit conflict between computers by hand (docs/sync-design.md §12.7): a version to compare with on one side
 * (a version set aside, the common base, or the version kept; read-only), the result on the other, differences
 * highlighted (@codemirror/merge). The result starts as the version kept, the text every computer shows now: the
 * sync's line merge already failed on these versions, so conflict markers would only be text to clean up; "Add its
 * other changes" brings in the set-aside version's changes that do not overlap (the pinned three-way merge) instead.
 * Saving writes the result as the user's own version, which settles the conflict. A version that arrives meanwhile is
 * never overwritten without the user saying so; leaving with typed text asks first.
 */
export function ConflictMerge({
  path,
  project,
  conflict,
  onDirty,
  onSaved,
  onClose,
}: {
  path: string;
  project: string;
  conflict: ConflictToMerge;
  onDirty: (dirty: boolean) => void;
  onSaved: (text: string, version: number) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('memories');
  const titleId = useId();
  const [sides, setSides] = useState<Side[]>();
  const [shown, setShown] = useState(0);
  const [dirty, setDirty] = useState(false);
  const [meanwhile, setMeanwhile] = useState<Meanwhile>();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState('');
  const host = useRef<HTMLDivElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const view = useRef<MergeView | undefined>(undefined);
  /** Each pane's words (its name, CodeMirror's phrases), which follow the window's language; the side the left pane holds. */
  const wordsA = useRef(new Compartment());
  const wordsB = useRef(new Compartment());
  const onLeft = useRef(0);
  const owner = useId();
  const saving = useRef(false);
  const kept = sides?.find((s) => s.kind === 'kept');
  const base = sides?.find((s) => s.kind === 'base');
  const left = sides?.[shown];

  useEffect(() => {
    let live = true;
    const read = (version: number) => call('memoryReadVersion', { path, version, project }).then((r) => r.text);
    (async () => {
      const now = await call('memoryRead', { path, project });
      const aside = await Promise.all(conflict.versions.map(async (version): Promise<Side> => ({ kind: 'aside', version, text: await read(version) })));
      // The base is shown only when its text can still be read.
      const baseText = conflict.base !== undefined ? await read(conflict.base).catch(() => undefined) : undefined;
      const all: Side[] = [...aside, ...(baseText !== undefined ? [{ kind: 'base' as const, version: conflict.base!, text: baseText }] : []), { kind: 'kept', version: now.version, text: now.text }];
      if (live) setSides(all);
    })().catch((e: unknown) => live && setError(messageOf(e)));
    return () => {
      live = false;
    };
    // Read once per open: what arrives later is announced, not loaded over the user's work.
  }, []);

  const save = async (over?: Meanwhile) => {
    const mv = view.current;
    // With something new meanwhile, only the warning's own button saves (over it, said so).
    if (!mv || !kept || (meanwhile && !over)) return;
    const text = mv.b.state.doc.toString();
    saving.current = true;
    try {
      const meta =
        over && 'deleted' in over
          ? await call('memoryWrite', { path, text, mode: 'create', project })
          : await call('memoryWrite', { path, text, mode: 'update', expectedVersion: over?.version ?? kept.version, project });
      onDirty(false);
      onSaved(text, meta.version);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'CONFLICT') {
        const now = await call('memoryRead', { path, project }).catch(() => undefined);
        setMeanwhile(now ? { version: now.version } : { deleted: true });
      } else if (e instanceof ApiError && e.code === 'NOT_FOUND') setMeanwhile({ deleted: true });
      else setError(messageOf(e));
    } finally {
      saving.current = false;
    }
  };
  const saveRef = useRef(save);
  saveRef.current = save;
  /**
   * Every change to the result: marks it unsaved and hands it to main as the memory's unsaved edit, so a lock (even
   * an idle one) keeps it; after unlock it is offered back in the editor, over the version kept.
   */
  const typed = (text: string) => {
    const changed = text !== kept?.text;
    setDirty(changed);
    saveMemoryDraft(owner, changed && kept ? { path, text, baseVersion: kept.version, project } : null);
  };
  const typedRef = useRef(typed);
  typedRef.current = typed;
  // Left, saved or not: the draft goes (a lock's draft was sent before the window locked).
  useEffect(() => () => saveMemoryDraft(owner, null), [owner]);

  // The two panes, once the texts are read: the compared text read-only, the result editable (Mod-S saves it).
  useEffect(() => {
    if (!sides || !kept || !host.current) return;
    const common: Extension = [essentials, markdown(), EditorView.lineWrapping, EditorView.perLineTextDirection.of(true)];
    onLeft.current = 0;
    const mv = new MergeView({
      a: { doc: sides[0]!.text, extensions: [common, EditorState.readOnly.of(true), wordsA.current.of([])] },
      b: { doc: kept.text, extensions: [common, saveKeymap(() => void saveRef.current()), changeListener((text) => typedRef.current(text)), wordsB.current.of([])] },
      parent: host.current,
      revertControls: 'a-to-b',
      renderRevertControl: takeButton(t('conflictMerge.take')),
      diffConfig: { scanLimit: 500, timeout: DIFF_MS },
    });
    view.current = mv;
    title.current?.focus();
    return () => {
      mv.destroy();
      view.current = undefined;
    };
    // Built once the texts are in; the compared side changes in place below.
  }, [sides]);

  // Another side chosen: its text replaces the compared one (the result is left as it is).
  useEffect(() => {
    const mv = view.current;
    if (!mv || !left || onLeft.current === shown) return;
    onLeft.current = shown;
    mv.a.dispatch({ changes: { from: 0, to: mv.a.state.doc.length, insert: left.text } });
  }, [left, shown]);

  // The panes' names and CodeMirror's words (the buttons between the panes too), in the window's language.
  useEffect(() => {
    const mv = view.current;
    if (!mv || !left) return;
    const words = (label: string): Extension => [phrases(t), EditorView.contentAttributes.of({ 'aria-label': label })];
    mv.a.dispatch({ effects: wordsA.current.reconfigure(words(t('conflictMerge.leftLabel', { side: sideLabel(t, left) }))) });
    mv.b.dispatch({ effects: wordsB.current.reconfigure(words(t('conflictMerge.resultLabel'))) });
    mv.reconfigure({ renderRevertControl: takeButton(t('conflictMerge.take')) });
  }, [left, t]);

  useEffect(() => onDirty(dirty), [dirty, onDirty]);

  useEffect(
    () =>
      on('memoryChanged', (c) => {
        if ((c.project ?? 'default') !== project || saving.current || !kept) return;
        if (c.op === 'delete' && (c.path === path || path.startsWith(c.path + '/'))) setMeanwhile({ deleted: true });
        else if (c.op === 'write' && c.path === path && c.version !== undefined && c.version !== kept.version) setMeanwhile({ version: c.version });
      }),
    [path, project, kept],
  );

  const cancel = () => (dirty ? setAsking(true) : onClose());
  const move = (dir: 1 | -1) => {
    const mv = view.current;
    if (!mv) return;
    if (!mv.chunks.length) return setStatus(t('conflictMerge.noChanges'));
    (dir > 0 ? goToNextChunk : goToPreviousChunk)({ state: mv.b.state, dispatch: (tr) => mv.b.dispatch(tr) });
    setStatus(t('conflictMerge.at', chunkAtCursor(mv)));
  };
  const take = () => {
    const mv = view.current;
    if (mv) setStatus(takeAtCursor(mv) ? t('conflictMerge.taken') : t('conflictMerge.notInChange'));
  };
  /** The set-aside version's changes that do not overlap, added to the result (where they overlap, the result stays). */
  const addOthers = () => {
    const mv = view.current;
    if (!mv || !base || left?.kind !== 'aside') return;
    const m = merge3(base.text, mv.b.state.doc.toString(), left.text);
    const text = mergedText(m, Array.from({ length: m.conflicts }, () => 'mine' as const))!;
    mv.b.dispatch({ changes: { from: 0, to: mv.b.state.doc.length, insert: text }, userEvent: 'input.merge' });
    setStatus(t('conflictMerge.added', { count: m.conflicts }));
  };

  return (
    <section
      className="conflict-merge"
      aria-labelledby={titleId}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || e.defaultPrevented || asking) return;
        e.stopPropagation();
        cancel();
      }}
    >
      <h3 id={titleId} ref={title} tabIndex={-1}>
        {t('conflictMerge.title')}
      </h3>
      <p>{t('conflictMerge.intro', { version: kept?.version ?? '' })}</p>
      {meanwhile && (
        <div className="banner warning" role="alert">
          <p>{'deleted' in meanwhile ? t('conflictMerge.deletedMeanwhile') : t('conflictMerge.changedMeanwhile', { version: meanwhile.version })}</p>
          <button onClick={() => void save(meanwhile)}>{'deleted' in meanwhile ? t('conflictMerge.saveAgain') : t('conflictMerge.saveOver', { version: meanwhile.version })}</button>
        </div>
      )}
      <ErrorText message={error} />
      {sides && (
        <div className="row conflict-merge-tools">
          <label>
            {t('conflictMerge.compareWith')}{' '}
            <select value={shown} onChange={(e) => setShown(Number(e.target.value))}>
              {sides.map((s, i) => (
                <option key={i} value={i}>
                  {sideLabel(t, s)}
                </option>
              ))}
            </select>
          </label>
          <button onClick={() => move(-1)}>{t('conflictMerge.previous')}</button>
          <button onClick={() => move(1)}>{t('conflictMerge.next')}</button>
          <button onClick={take}>{t('conflictMerge.take')}</button>
          {base && left?.kind === 'aside' && <button onClick={addOthers}>{t('conflictMerge.addOthers')}</button>}
        </div>
      )}
      <p className="hint conflict-merge-status" aria-live="polite">
        {status}
      </p>
      {sides && left && (
        <div className="conflict-merge-captions" aria-hidden="true">
          <span>{sideLabel(t, left)}</span>
          <span>{t('conflictMerge.result')}</span>
        </div>
      )}
      <div className="conflict-merge-panes" ref={host} />
      <div className="row">
        <button className="primary" disabled={!sides || meanwhile !== undefined} onClick={() => void save()}>
          {t('conflictMerge.save')}
        </button>
        <button onClick={cancel}>{t('actions.cancel')}</button>
      </div>
      {asking && <DiscardDialog onKeep={() => setAsking(false)} onDiscard={onClose} />}
    </section>
  );
}
