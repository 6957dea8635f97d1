import { useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { usePassphraseStrength } from '../../lib/strength';

/** First run: choose a passphrase, then keep the recovery key (shown once). */
export function CreateVault({ onDone }: { onDone: () => void }) {
  const [pass, setPass] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [recoveryKey, setRecoveryKey] = useState<string>();
  const strength = usePassphraseStrength(pass);

  if (recoveryKey) return <RecoveryKeyStep recoveryKey={recoveryKey} onDone={onDone} />;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    // Main judges again on create; this only saves a round trip when the meter already said no.
    if (strength.assessment && !strength.assessment.acceptable) return setError(`This passphrase is too weak. ${strength.hint}`);
    if (pass !== confirm) return setError('The two passphrases differ. Type the same passphrase twice.');
    setBusy(true);
    try {
      const { recoveryKey } = await call('vaultCreate', { passphrase: pass });
      setPass('');
      setConfirm('');
      setRecoveryKey(recoveryKey);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="centered">
      <form className="card" onSubmit={submit} aria-labelledby="create-title">
        <h1 id="create-title">Create your memory vault</h1>
        <p>Everything Claude remembers is stored encrypted on this computer. Choose a passphrase only you know: without it (or the recovery key) nobody can open the vault — not even us.</p>
        <label>
          Passphrase
          <input type="password" autoFocus autoComplete="new-password" value={pass} onChange={(e) => setPass(e.target.value)} />
        </label>
        <div className="meter" role="meter" aria-label="Passphrase strength" aria-valuemin={0} aria-valuemax={4} aria-valuenow={strength.assessment?.score ?? 0} aria-valuetext={strength.label}>
          <div className={`bar ${strength.label.replace(' ', '-')}`} style={{ width: `${((strength.assessment?.score ?? 0) + 1) * 20}%` }} />
        </div>
        <p className="hint">
          Strength: {pass ? strength.label : '—'}. {pass ? strength.hint : ''}
        </p>
        <label>
          Confirm passphrase
          <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </label>
        <ErrorText message={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating the vault…' : 'Create vault'}
        </button>
      </form>
    </main>
  );
}

function RecoveryKeyStep({ recoveryKey, onDone }: { recoveryKey: string; onDone: () => void }) {
  const [check, setCheck] = useState('');
  const [error, setError] = useState<string>();
  const [copied, setCopied] = useState(false);
  const lastGroup = recoveryKey.split('-').at(-1) ?? '';
  const save = () => {
    const blob = new Blob([`Mnemo recovery key\n\n${recoveryKey}\n\nKeep this somewhere safe, apart from this computer. It opens your vault if you forget the passphrase.\n`], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'mnemo-recovery-key.txt';
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const finish = (e: React.FormEvent) => {
    e.preventDefault();
    if (check.trim().toUpperCase() !== lastGroup) return setError('That does not match the last group of the recovery key. Check the copy you kept.');
    onDone();
  };
  return (
    <main className="centered">
      <form className="card" onSubmit={finish} aria-labelledby="rk-title">
        <h1 id="rk-title">Keep this key safe</h1>
        <p>Your recovery key opens the vault if you forget the passphrase. It is shown only now. Save it somewhere safe, away from this computer.</p>
        <output className="recovery-key" aria-label="Recovery key">
          {recoveryKey}
        </output>
        <div className="row">
          <button type="button" onClick={() => void call('clipboardWriteRecoveryKey').then((r) => setCopied(r.copied), () => setCopied(false))}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          <button type="button" onClick={save}>
            Save to file…
          </button>
        </div>
        <label>
          To check you kept it, type its last group ({lastGroup.length} characters)
          <input value={check} onChange={(e) => setCheck(e.target.value)} autoComplete="off" />
        </label>
        <ErrorText message={error} />
        <button type="submit">I have saved my recovery key</button>
      </form>
    </main>
  );
}
