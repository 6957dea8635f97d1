import { useEffect, useId, useRef, useState } from 'react';
import { imeOwnsKey } from '../lib/keys';
import './MenuButton.css';

export interface MenuItem {
  label: string;
  onSelect: () => void;
}

/**
 * A "⋯" button that opens a menu of actions (the ARIA menu button pattern):
 * Enter, Space or Down opens it on the first item, Up on the last; Up, Down,
 * Home, End and a first letter move between items; Escape closes it and puts
 * focus back on the button, as does choosing an item (so a dialog the item
 * opens returns focus there too); Tab or a click elsewhere closes it.
 */
export function MenuButton({ label, items, className = '', open: openFrom }: { label: string; items: MenuItem[]; className?: string; open?: number | undefined }) {
  const [open, setOpen] = useState<'first' | 'last'>();
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const id = useId();
  const entries = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  useEffect(() => {
    if (!open) return;
    const all = entries();
    (open === 'first' ? all[0] : all.at(-1))?.focus();
  }, [open]);
  // Asked to open from outside (a key on the row it belongs to).
  useEffect(() => {
    if (openFrom) setOpen('first');
  }, [openFrom]);
  const close = (refocus: boolean) => {
    setOpen(undefined);
    if (refocus) button.current?.focus();
  };
  const move = (e: React.KeyboardEvent) => {
    const all = entries();
    const i = all.indexOf(document.activeElement as HTMLElement);
    const to = (n: number) => {
      e.preventDefault();
      all[(n + all.length) % all.length]?.focus();
    };
    if (e.key === 'ArrowDown') to(i + 1);
    else if (e.key === 'ArrowUp') to(i - 1);
    else if (e.key === 'Home') to(0);
    else if (e.key === 'End') to(all.length - 1);
    else if (e.key === 'Escape' && !imeOwnsKey(e)) {
      // Escape closes the menu only: it must not also stop a streaming reply or close the pane.
      e.preventDefault();
      e.stopPropagation();
      close(true);
    } else if (e.key === 'Tab') close(false);
    else if (e.key.length === 1 && /\S/.test(e.key)) {
      const next = [...all.slice(i + 1), ...all.slice(0, i + 1)].find((el) => el.textContent?.trim().toLowerCase().startsWith(e.key.toLowerCase()));
      if (next) to(all.indexOf(next));
    }
  };
  return (
    <span
      className={`menu-button ${className}`}
      onBlur={(e) => {
        if (open && !e.currentTarget.contains(e.relatedTarget as Node | null)) setOpen(undefined);
      }}
    >
      <button
        ref={button}
        type="button"
        className="small menu-trigger"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open ? true : false}
        aria-controls={open ? id : undefined}
        onClick={() => (open ? close(false) : setOpen('first'))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setOpen(e.key === 'ArrowDown' ? 'first' : 'last');
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <ul ref={menu} id={id} role="menu" aria-label={label} className="menu" onKeyDown={move}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  close(true);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}
