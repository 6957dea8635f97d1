import { useEffect, useRef, type ReactNode } from 'react';
import { imeOwnsKey } from '../lib/keys';

/**
 * A confirmation that asks before something is destroyed: it takes focus (on
 * Cancel, the safe answer), Escape cancels it, and when it closes focus goes
 * back to the control that opened it, so a keyboard user is never dropped on
 * the page body.
 */
export function ConfirmDialog({ label, onCancel, className = 'confirm', role = 'alertdialog', children }: { label: string; onCancel: () => void; className?: string; role?: 'alertdialog' | 'dialog'; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    (box.current?.querySelector<HTMLElement>('[data-cancel]') ?? box.current)?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <div
      ref={box}
      role={role}
      aria-label={label}
      tabIndex={-1}
      className={className}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || imeOwnsKey(e)) return;
        // Escape here answers the dialog only; it must not also stop a reply that is streaming.
        e.stopPropagation();
        onCancel();
      }}
    >
      {children}
    </div>
  );
}
