import { useMemo, useRef } from 'react';

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
