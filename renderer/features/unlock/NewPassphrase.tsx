import { useState } from 'react';
import { PassphraseField } from '../../components/PassphraseField';
import { StrengthMeter } from '../../components/StrengthMeter';
import { usePassphraseStrength, type Strength } from '../../lib/strength';

/** A new passphrase typed twice, with main's strength estimate shown as the user types. */
export function useNewPassphrase(): { pass: string; confirm: string; strength: Strength; setPass: (v: string) => void; setConfirm: (v: string) => void; problem: () => string | undefined; clear: () => void } {
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
      if (!pass) return 'Choose a passphrase.';
      if (strength.assessment && !strength.assessment.acceptable) return `This passphrase is too weak. ${strength.hint}`;
      if (pass !== confirm) return 'The two passphrases differ. Type the same passphrase twice.';
      return undefined;
    },
    clear: () => {
      setPass('');
      setConfirm('');
    },
  };
}

/** The two fields and the meter. */
export function NewPassphraseFields({ state, label = 'Passphrase' }: { state: ReturnType<typeof useNewPassphrase>; label?: string }) {
  return (
    <>
      <PassphraseField label={label} value={state.pass} onChange={state.setPass} autoComplete="new-password" autoFocus />
      <StrengthMeter strength={state.strength} />
      <PassphraseField label={`Confirm ${label.toLowerCase()}`} value={state.confirm} onChange={state.setConfirm} autoComplete="new-password" />
    </>
  );
}
