import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog';

/** Where a memory view is asked to go: a project, and a file or folder in it; `ask` then asks to rename or delete it, or shows a file's history. */
export type MemoryTarget = { project: string; path?: string | undefined; ask?: AskedMode };
/** What a memory view can be asked to do on arrival (`merge`: merge an edit conflict between computers). */
export type AskedMode = 'rename' | 'delete' | 'history' | 'merge';

/**
 * Which project and memory a view shows, and going elsewhere without losing
 * an unsaved edit: while `dirty` is set, a switch waits in `leaving` for the
 * user's answer (`apply` it to discard the edit). Shared by the Memories tab
 * and the pane beside the chat.
 */
export function useMemoryNavigation(start: MemoryTarget, onApply?: (t: MemoryTarget, projectChanged: boolean) => void) {
  const [project, setProject] = useState(start.project);
  const [selected, setSelected] = useState<string | undefined>(start.path);
  const [ask, setAsk] = useState<{ mode: AskedMode; n: number }>();
  const [leaving, setLeaving] = useState<MemoryTarget>();
  const dirty = useRef(false);
  // Bumped each time the user opens a memory: the editor's identity. A rename keeps it, so what was typed stays.
  const [opened, setOpened] = useState(0);
  const onApplyRef = useRef(onApply);
  onApplyRef.current = onApply;
  const apply = useCallback((t: MemoryTarget) => {
    dirty.current = false;
    setOpened((n) => n + 1);
    setLeaving(undefined);
    setAsk((r) => (t.ask ? { mode: t.ask, n: (r?.n ?? 0) + 1 } : undefined));
    setProject((before) => {
      onApplyRef.current?.(t, before !== t.project);
      return t.project;
    });
    setSelected(t.path);
  }, []);
  /** Goes to a project and file, asking first when the open memory has unsaved changes. False when it did not go (yet). */
  const go = (t: MemoryTarget): boolean => {
    if (t.project === project && t.path === selected) {
      if (t.ask) setAsk((r) => ({ mode: t.ask!, n: (r?.n ?? 0) + 1 }));
      return true;
    }
    if (dirty.current) {
      setLeaving(t);
      return false;
    }
    apply(t);
    return true;
  };
  const goRef = useRef(go);
  goRef.current = go;
  return { project, selected, setSelected, ask, leaving, setLeaving, dirty, opened, apply, go, goRef };
}

/** "Discard your unsaved changes?" asked in the page: Discard changes, or Keep editing (also Escape). */
export function DiscardDialog({ onDiscard, onKeep }: { onDiscard: () => void; onKeep: () => void }) {
  const { t } = useTranslation('memories');
  return (
    <ConfirmDialog label={t('discard.label')} onCancel={onKeep}>
      <p>{t('discard.question')}</p>
      <button className="danger" onClick={onDiscard}>
        {t('discard.discard')}
      </button>
      <button data-cancel onClick={onKeep}>
        {t('discard.keep')}
      </button>
    </ConfirmDialog>
  );
}
