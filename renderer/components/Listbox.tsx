import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import './ModelListbox.css';

/** One choice of a Listbox. */
export interface ListChoice {
  /** null: a choice meaning "none picked" (a model list's "Default"). */
  value: string | null;
  /** What the closed box shows. */
  short: string;
  name: string;
  /** A second name shown as it is (a model's id). */
  id?: string | undefined;
  /** A line under the name (a model's context window and price tier). */
  details?: string | undefined;
  /** `name` and `short` are a proper name (a model's, a project's), not the window's words. */
  literal?: boolean | undefined;
}

export interface ListboxProps {
  /** The accessible name ("Model", "Project"). */
  label: string;
  value: string | null;
  choices: readonly ListChoice[];
  onChange: (value: string | null) => void;
  describedBy?: string | undefined;
  /** Smaller, for beside the message box (its list opens upwards). */
  compactBox?: boolean | undefined;
  /** Added to the box's classes, for where it sits. */
  className?: string | undefined;
}

/**
 * A choice as the ARIA select-only combobox: one Tab stop whose popup lists
 * each choice (with its details, if any). Closed, Up/Down,
 * Enter, Space or Alt+Down open it (Home/End open at the first/last); open,
 * Up/Down/Home/End move, Enter, Space or Tab choose, Escape closes without a
 * change; typing letters jumps to the next choice whose name starts with them.
 * Focus stays on the box throughout.
 */
export function Listbox({ label, value, choices, onChange, describedBy, compactBox, className }: ListboxProps) {
  const id = useId();
  const listId = `${id}-list`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const typed = useRef({ text: '', at: 0 });
  // The active choice stays in sight as the keys move through a long list.
  useEffect(() => {
    if (open) document.getElementById(`${id}-opt-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [open, active, id]);

  const selected = Math.max(0, choices.findIndex((c) => c.value === value));
  const current = choices[selected];

  const show = (at: number) => {
    setActive(Math.min(Math.max(at, 0), choices.length - 1));
    setOpen(true);
  };
  const choose = (at: number) => {
    setOpen(false);
    const c = choices[at];
    if (c && c.value !== value) onChange(c.value);
  };
  /** The next choice after the active one whose name starts with what was typed in the last half second. */
  const typeAhead = (key: string) => {
    const now = Date.now();
    const text = (now - typed.current.at < 500 ? typed.current.text : '') + key.toLowerCase();
    typed.current = { text, at: now };
    const from = open ? active : selected;
    const order = [...choices.keys()].map((i) => (from + (text.length === 1 ? 1 : 0) + i) % choices.length);
    const hit = order.find((i) => choices[i]!.name.toLowerCase().startsWith(text) || choices[i]!.short.toLowerCase().startsWith(text));
    if (hit !== undefined) show(hit);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const step: Record<string, (() => void) | undefined> = open
      ? {
          ArrowDown: () => (e.altKey ? undefined : setActive((a) => Math.min(a + 1, choices.length - 1))),
          ArrowUp: () => (e.altKey ? choose(active) : setActive((a) => Math.max(a - 1, 0))),
          Home: () => setActive(0),
          End: () => setActive(choices.length - 1),
          PageDown: () => setActive((a) => Math.min(a + 10, choices.length - 1)),
          PageUp: () => setActive((a) => Math.max(a - 10, 0)),
          Enter: () => choose(active),
          ' ': () => choose(active),
          Escape: () => setOpen(false),
        }
      : {
          ArrowDown: () => show(selected),
          ArrowUp: () => show(selected),
          Enter: () => show(selected),
          ' ': () => show(selected),
          Home: () => show(0),
          End: () => show(choices.length - 1),
        };
    // A space inside a name being typed ("Claude H…") is part of it, not a choice.
    const typing = open && typed.current.text !== '' && Date.now() - typed.current.at < 500;
    const act = e.key === ' ' && typing ? () => typeAhead(' ') : step[e.key];
    if (act) {
      e.preventDefault();
      // Escape closes this popup only, not what holds it (a reply being stopped, a dialog).
      e.stopPropagation();
      act();
    } else if (e.key === 'Tab' && open) {
      choose(active);
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && e.key !== ' ') {
      e.preventDefault();
      typeAhead(e.key);
    }
  };

  return (
    <div className={`model-listbox${compactBox ? ' compact' : ''}${className ? ` ${className}` : ''}`}>
      <div
        role="combobox"
        tabIndex={0}
        aria-label={label}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open ? `${id}-opt-${active}` : undefined}
        aria-describedby={describedBy}
        className="model-box"
        onKeyDown={onKeyDown}
        onClick={() => (open ? setOpen(false) : show(selected))}
        onBlur={() => setOpen(false)}
      >
        {/* A model's or project's own name is not language ("Default (…)" is); a user's name keeps its direction. */}
        <span className="model-current" translate={current && !current.literal ? undefined : 'no'} dir={current?.literal ? 'auto' : undefined}>
          {current?.short ?? value ?? ''}
        </span>
        <span className="model-caret" aria-hidden="true">
          ▾
        </span>
      </div>
      <ul role="listbox" id={listId} aria-label={label} hidden={!open} className="model-options">
        {choices.map((c, i) => (
          <li
            key={c.value ?? ''}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === selected}
            className={i === active ? 'active' : undefined}
            // Keeps focus on the box, so choosing with the mouse does not first close the list by blurring it.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => choose(i)}
            onMouseMove={() => i !== active && setActive(i)}
          >
            <span className="model-name" translate={c.literal ? 'no' : undefined} dir={c.literal ? 'auto' : undefined}>
              {c.name}
            </span>
            {(c.id || c.details) && (
              <span className="model-details">
                {c.id && <span translate="no">{c.id}</span>}
                {c.id && c.details ? ' · ' : ''}
                {c.details}
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
