import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { imeOwnsKey } from '../../lib/keys';

/**
 * The confirm step of an action that needs the passphrase (main checks it): focus lands in the field, Enter
 * confirms, Esc cancels. `error` (a wrong passphrase, say) shows inside it, so the user can try again in place.
 */
export function PassphraseConfirm(props: { label: string; question: string; action: string; value: string; error?: string | undefined; onChange(v: string): void; onConfirm(): void; onCancel(): void }) {
  const { t } = useTranslation('settings');
  const input = useRef<HTMLInputElement>(null);
  const questionId = useId();
  useEffect(() => input.current?.focus(), []);
  return (
    <form
      role="alertdialog"
      aria-label={props.action}
      aria-describedby={questionId}
      className="confirm"
      onSubmit={(e) => {
        e.preventDefault();
        props.onConfirm();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !imeOwnsKey(e)) props.onCancel();
      }}
    >
      <p id={questionId}>{props.question}</p>
      <PassphraseField label={props.label} inputRef={input} autoComplete="current-password" value={props.value} onChange={props.onChange} />
      <button type="submit" disabled={!props.value}>
        {props.action}
      </button>
      <button type="button" onClick={props.onCancel}>
        {t('consent.cancel')}
      </button>
      <ErrorText message={props.error} />
    </form>
  );
}
