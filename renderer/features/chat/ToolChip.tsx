import { createContext, memo, useContext, useState, useSyncExternalStore } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Diff } from '../../components/Diff';
import { call, messageOf } from '../../lib/api';
import { i18n, translateKey } from '../../lib/i18n';
import { MemoryPath, plain } from './MemoryPath';

export interface ToolView {
  id: string;
  command: string;
  path: string;
  newPath?: string;
  content?: string;
  isError?: boolean;
  diff?: { before: string; after: string };
  version?: number;
  /** Why it failed, when main knows better than the result Claude got: a catalog key and its English. */
  reason?: { key: string; text: string };
  running?: boolean;
}

/** What a finished operation is called, by command; a command the app does not know is named as it is. */
const DONE = {
  view: 'tool.done.view',
  create: 'tool.done.create',
  str_replace: 'tool.done.edit',
  insert: 'tool.done.edit',
  delete: 'tool.done.delete',
  rename: 'tool.done.rename',
} as const;

/** The sentence a chip says, as a catalog key: the operation with its path (and a rename's new path). */
function labelKey(tool: ToolView) {
  if (tool.running) return tool.newPath ? 'tool.runningRename' : 'tool.running';
  if (tool.isError) return tool.newPath ? 'tool.failedRename' : 'tool.failed';
  return tool.command in DONE ? DONE[tool.command as keyof typeof DONE] : 'tool.done.other';
}

const labelValues = (tool: ToolView) => ({ command: tool.command, path: tool.path, newPath: tool.newPath ?? '' });

/** What a chip says, as plain text (for a screen reader's summary of a reply): the operation and its path(s). */
export function toolLabel(tool: ToolView): string {
  return plain(i18n.getFixedT(null, 'chat')(labelKey(tool), labelValues(tool)));
}

/** Which chips are expanded, by tool call id: a chip keeps its state when the streaming reply becomes the saved one. */
const expanded = new Set<string>();

/**
 * What each chip's undo answered, by tool call id, kept outside the chip: the streaming reply becomes the saved one
 * (a new chip) while an undo may still be under way, and its answer must show in whichever chip is there then.
 */
const undone = new Map<string, { ok: boolean; text: string }>();
const undoListeners = new Set<() => void>();
/** The chips whose undo is under way, by tool call id: a chip made meanwhile must not send it twice. */
const undoing = new Set<string>();
function setUndone(id: string, ok: boolean, text: string) {
  undone.set(id, { ok, text });
  for (const l of undoListeners) l();
}
function subscribeUndone(l: () => void) {
  undoListeners.add(l);
  return () => void undoListeners.delete(l);
}

/** The open conversation's project (absent: the first), whose memory the chips' paths name. */
export const ChipProject = createContext<string | undefined>(undefined);

/** One memory operation in the transcript: expandable to the exact result Claude got, with a diff, a link to the file and an undo. */
export const ToolChip = memo(function ToolChip({ tool, onOpen }: { tool: ToolView; onOpen: (path: string, project?: string) => void }) {
  const { t } = useTranslation('chat');
  const project = useContext(ChipProject);
  const [open, setOpenState] = useState(() => expanded.has(tool.id));
  const setOpen = (next: boolean) => {
    if (next) expanded.add(tool.id);
    else expanded.delete(tool.id);
    setOpenState(next);
  };
  const undo = useSyncExternalStore(subscribeUndone, () => undone.get(tool.id));
  const target = tool.newPath ?? tool.path;
  /** Undone already: a second undo would only find its own result and answer "changed since… not undone". */
  const done = undo?.ok === true;
  const canUndo = !tool.isError && !tool.running && tool.version !== undefined && ['create', 'str_replace', 'insert'].includes(tool.command);
  return (
    <div className={`chip ${tool.isError ? 'failed' : ''}`}>
      <button className="chip-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Trans t={t} i18nKey={labelKey(tool)} values={labelValues(tool)} components={[<MemoryPath path={tool.path} />, <MemoryPath path={tool.newPath ?? ''} />]} />
      </button>
      {/* Shown without opening the chip: the user allowed this change and must see why it was not made. */}
      {tool.isError && tool.reason && <p className="chip-reason">{translateKey(tool.reason.key) ?? tool.reason.text}</p>}
      {open && (
        <div className="chip-body">
          {tool.content !== undefined && (
            <pre className="tool-result" aria-label={t('tool.result')} dir="auto" translate="no">
              {tool.content}
            </pre>
          )}
          {tool.diff && <Diff before={tool.diff.before} after={tool.diff.after} label={t('tool.changes', { path: target })} />}
          <div className="row">
            {/* The path names a file in the conversation's project, so it opens there (a same-named file elsewhere is another file). */}
            {tool.command !== 'delete' && <button onClick={() => onOpen(target, project ?? 'default')}>{t('tool.open')}</button>}
            {canUndo && (
              <button
                aria-disabled={done || undefined}
                onClick={() => {
                  if (done || undoing.has(tool.id)) return;
                  undoing.add(tool.id);
                  void call('chatUndo', { path: target, version: tool.version!, ...(project ? { project } : {}), ...(tool.command === 'create' ? { created: true } : {}) })
                    .then(
                      () => setUndone(tool.id, true, t('tool.undone')),
                      (e: unknown) => setUndone(tool.id, false, messageOf(e)),
                    )
                    .finally(() => undoing.delete(tool.id));
                }}
              >
                {t('tool.undo')}
              </button>
            )}
          </div>
          {undo && <p role="status">{undo.text}</p>}
        </div>
      )}
    </div>
  );
});
