import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PassphraseField } from '../../components/PassphraseField';
import { StrengthMeter } from '../../components/StrengthMeter';
import { usePassphraseStrength, type Strength } from '../../lib/strength';

/** A new passphrase typed twice, with main's strength estimate shown as the user types. */
export function useNewPassphrase(): { pass: string; confirm: string; strength: Strength; setPass: (v: string) => void; setConfirm: (v: string) => void; problem: () => string | undefined; clear: () => void } {
  const { t } = useTranslation('unlock');
  const [pass, setPass] = useState('');
  const [confirm, setConfirm] = useState('');
  const strength = usePassphraseStrength(pass);
  return {
    pass,
    confirm,
    strength,
    setPass,
    setConfirm,
    // Main judges again whatever this says; this only saves a round trip when the meter already said no.
    problem: () => {
      if (!pass) return t('newPassphrase.choose');
      if (strength.assessment && !strength.assessment.acceptable) return t('newPassphrase.tooWeak', { hint: strength.hint });
      if (pass !== confirm) return t('newPassphrase.differ');
      return undefined;
    },
    clear: () => {
      setPass('');
      setConfirm('');
    },
  };
}

/** The field names of each kind of new passphrase (catalog keys). */
const LABELS = {
  first: { label: 'newPassphrase.passphrase', confirm: 'newPassphrase.confirm' },
  next: { label: 'newPassphrase.new', confirm: 'newPassphrase.confirmNew' },
} as const;

/** The two fields and the meter; `kind` "next" names them "New passphrase". */
export function NewPassphraseFields({ state, kind = 'first' }: { state: ReturnType<typeof useNewPassphrase>; kind?: keyof typeof LABELS }) {
  const { t } = useTranslation('unlock');
  return (
    <>
      <PassphraseField label={t(LABELS[kind].label)} value={state.pass} onChange={state.setPass} autoComplete="new-password" autoFocus />
      <StrengthMeter strength={state.strength} />
      <PassphraseField label={t(LABELS[kind].confirm)} value={state.confirm} onChange={state.setConfirm} autoComplete="new-password" />
    </>
  );
}
