import { useEffect, useRef, type ReactNode } from 'react';
import { imeOwnsKey } from '../lib/keys';
import './Modal.css';

/**
 * A modal dialog on the browser's own `<dialog>`: the page behind it is inert
 * (no clicks, no Tab stops, hidden from screen readers) while it is open. It
 * takes focus (on `initialFocus`, else itself); Escape, a click beside it or a
 * control marked `data-dismiss` closes it. However it closes, focus goes back
 * to what had it before, so a keyboard user is never left on the page body; a
 * choice that leads elsewhere moves focus on from there once the page is live again.
 */
export function Modal({ labelledBy, className, initialFocus, onDismiss, children }: { labelledBy: string; className: string; initialFocus?: string; onDismiss: () => void; children: ReactNode }) {
  const box = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = box.current;
    if (!d) return;
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    if (!d.open) d.showModal();
    (initialFocus ? d.querySelector<HTMLElement>(initialFocus) : d)?.focus();
    return () => {
      if (d.open) d.close();
      const lost = !document.activeElement || document.activeElement === document.body || d.contains(document.activeElement);
      if (lost && opener?.isConnected) opener.focus();
    };
  }, [initialFocus]);
  return (
    <dialog
      ref={box}
      className={`modal ${className}`}
      aria-labelledby={labelledBy}
      aria-modal="true"
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        // Escape is the dialog's alone: it must not also stop a streaming reply behind it. While an input method
        // composes, Escape is its own (it cancels the composition), and the dialog stays.
        e.stopPropagation();
        e.preventDefault();
        if (!imeOwnsKey(e)) onDismiss();
      }}
      // Escape the browser turns into "cancel" by other means (a close request): the same as Escape.
      onCancel={(e) => {
        e.preventDefault();
        onDismiss();
      }}
      onClick={(e) => {
        if (e.target instanceof Element && e.target.closest('[data-dismiss]')) return onDismiss();
        // A click on the backdrop lands on the dialog element itself, outside its box.
        const r = e.currentTarget.getBoundingClientRect();
        if (e.target === e.currentTarget && (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom)) onDismiss();
      }}
    >
      {children}
    </dialog>
  );
}
