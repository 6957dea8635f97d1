import { useState } from 'react';
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
  const { pass, confirm, strength } = state;
  return (
    <>
      <label>
        {label}
        <input type="password" autoFocus autoComplete="new-password" value={pass} onChange={(e) => state.setPass(e.target.value)} />
      </label>
      <div className="meter" role="meter" aria-label="Passphrase strength" aria-valuemin={0} aria-valuemax={4} aria-valuenow={strength.assessment?.score ?? 0} aria-valuetext={strength.label}>
        <div className={`bar ${strength.label.replace(' ', '-')}`} style={{ width: `${((strength.assessment?.score ?? 0) + 1) * 20}%` }} />
      </div>
      <p className="hint">
        Strength: {pass ? strength.label : '—'}. {pass ? strength.hint : ''}
      </p>
      <label>
        Confirm {label.toLowerCase()}
        <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => state.setConfirm(e.target.value)} />
      </label>
    </>
  );
}
