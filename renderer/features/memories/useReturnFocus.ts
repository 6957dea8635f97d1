import { useEffect, useMemo, useRef, useState } from 'react';

/**
 * Remembers what had focus when a dialog or inline form opened (a tree item,
 * a toolbar button) and gives focus back to it when that closes, so a
 * keyboard user is never dropped on the page body.
 */
export function useReturnFocus(): { remember: () => void; restore: () => void } {
  const opener = useRef<HTMLElement | null>(null);
  return useMemo(
    () => ({
      remember: () => {
        opener.current = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
      },
      restore: () => {
        const el = opener.current;
        opener.current = null;
        if (el?.isConnected) el.focus();
      },
    }),
    [],
  );
}

/**
 * What a pane is doing (`rest` until asked otherwise) when a rename or delete
 * can be asked for from the tree (F2, Delete): each `request` switches to its
 * mode, remembering the focus that `closeAsk` gives back. A new `subject` (the
 * pane's path) goes back to `rest` first, so a request made with it still wins.
 */
export function useAskedMode<M extends string, A extends string = 'rename' | 'delete'>(rest: M, request: { mode: A; n: number } | undefined, subject?: string) {
  const [mode, setMode] = useState<M | A>(request?.mode ?? rest);
  const back = useReturnFocus();
  useEffect(() => setMode(rest), [rest, subject]);
  useEffect(() => {
    if (!request) return;
    back.remember();
    setMode(request.mode);
  }, [request, back]);
  const closeAsk = () => {
    setMode(rest);
    back.restore();
  };
  return { mode, setMode, back, closeAsk };
}
