import { useId, useLayoutEffect, useRef, useState, type Ref } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import './PassphraseField.css';

export interface PassphraseFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete: 'current-password' | 'new-password' | 'off';
  autoFocus?: boolean | undefined;
  disabled?: boolean | undefined;
  inputRef?: Ref<HTMLInputElement> | undefined;
  invalid?: boolean | undefined;
  describedBy?: string | undefined;
  /** What the toggle names ("Show API key"); by default the label in lower case ("Show confirm passphrase"). */
  what?: string | undefined;
  placeholder?: string | undefined;
  readOnly?: boolean | undefined;
  /** A secret that is not words in any language (an API key): not for a page translator. */
  literal?: boolean | undefined;
}

/**
 * A secret's input (a passphrase, the API key) with a Show/Hide toggle beside it. The toggle is a real
 * button whose words say what it will do ("Show passphrase", then "Hide passphrase" while shown), next in the Tab
 * order after the field; pressed with a pointer it leaves the focus and the caret in the field, and it never touches
 * what was typed. Both words take the same room, so the field does not change width as they swap.
 */
export function PassphraseField({ label, value, onChange, autoComplete, autoFocus, disabled, inputRef, invalid, describedBy, what, placeholder, readOnly, literal }: PassphraseFieldProps) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const [shown, setShown] = useState(false);
  const named = what ?? label.toLocaleLowerCase(i18n.language);
  const input = useRef<HTMLInputElement | null>(null);
  // Changing an input's type can reset its selection: the caret is put back where it was if the field had focus.
  const caret = useRef<{ start: number | null; end: number | null }>(undefined);
  useLayoutEffect(() => {
    const el = input.current;
    const at = caret.current;
    caret.current = undefined;
    if (!el || !at || document.activeElement !== el) return;
    el.setSelectionRange(at.start, at.end);
    // Some Chromium versions (150) reset it once more after the change is laid out, to the start: put back then too,
    // only from that reset (a caret the user has moved since is left alone).
    const frame = requestAnimationFrame(() => {
      if (document.activeElement === el && el.selectionStart === 0 && el.selectionEnd === 0 && (at.start !== 0 || at.end !== 0)) el.setSelectionRange(at.start, at.end);
    });
    return () => cancelAnimationFrame(frame);
  }, [shown]);

  const setRefs = (el: HTMLInputElement | null) => {
    input.current = el;
    if (typeof inputRef === 'function') inputRef(el);
    else if (inputRef) (inputRef as { current: HTMLInputElement | null }).current = el;
  };

  return (
    <div className="passphrase-field">
      <label htmlFor={id}>{label}</label>
      <div className="passphrase-input">
        <input
          ref={setRefs}
          id={id}
          type={shown ? 'text' : 'password'}
          // A shown passphrase is still a secret: no spell-check (it would be sent to a dictionary service), no autocorrect.
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          autoComplete={autoComplete}
          autoFocus={autoFocus}
          disabled={disabled}
          aria-invalid={invalid ? true : undefined}
          aria-describedby={describedBy}
          placeholder={placeholder}
          readOnly={readOnly}
          translate={literal ? 'no' : undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
        <button
          type="button"
          className="reveal"
          aria-controls={id}
          // A pointer press would take the focus from the field; the field keeps it (keyboard users stay on the button).
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => {
            const el = input.current;
            if (el && document.activeElement === el) caret.current = { start: el.selectionStart, end: el.selectionEnd };
            setShown((s) => !s);
          }}
        >
          {/* Named in full by its text ("Hide confirm passphrase"), the field's name said only to screen readers. The word
              not in use keeps its room but is hidden (and so not part of the name). */}
          <span className="reveal-words">
            <span className={shown ? 'off' : undefined}>
              <Trans t={t} i18nKey="passphraseField.show" values={{ label: named }} components={[<span className="sr-only" />]} />
            </span>
            <span className={shown ? undefined : 'off'}>
              <Trans t={t} i18nKey="passphraseField.hide" values={{ label: named }} components={[<span className="sr-only" />]} />
            </span>
          </span>
        </button>
      </div>
    </div>
  );
}
