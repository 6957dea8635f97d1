import { Fragment, useEffect, useRef, useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { NewPassphraseFields, useNewPassphrase } from './NewPassphrase';
import '../../components/PrimaryButton.css';

/** First run: choose a passphrase, then keep the recovery key (shown once). */
export function CreateVault({ onDone }: { onDone: () => void }) {
  const fields = useNewPassphrase();
  const { busy, error, run } = useAction();
  const [recoveryKey, setRecoveryKey] = useState<string>();

  if (recoveryKey) return <RecoveryKeyStep recoveryKey={recoveryKey} onDone={onDone} />;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(fields.problem(), async () => {
      const { recoveryKey } = await call('vaultCreate', { passphrase: fields.pass });
      fields.clear();
      setRecoveryKey(recoveryKey);
    });
  };

  return (
    <main className="centered">
      <form className="card" onSubmit={submit} aria-labelledby="create-title">
        <h1 id="create-title">Create your memory vault</h1>
        <p>Everything Claude remembers is stored encrypted on this computer. Choose a passphrase only you know: without it (or the recovery key) nobody can open the vault — not even us.</p>
        <NewPassphraseFields state={fields} />
        <ErrorText message={error} />
        <button type="submit" className="primary" disabled={busy}>
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
  const title = useRef<HTMLHeadingElement>(null);
  // The form that was focused is gone: start this screen at its heading, so a screen reader reads it from the top.
  useEffect(() => title.current?.focus(), []);
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
        <h1 id="rk-title" ref={title} tabIndex={-1}>
          Keep this key safe
        </h1>
        <p>Your recovery key opens the vault if you forget the passphrase. It is shown only now. Save it somewhere safe, away from this computer.</p>
        <output className="recovery-key" aria-label="Recovery key">
          {/* A line may end only after a hyphen, so no group is cut in two when someone copies it by hand. */}
          {recoveryKey.split('-').map((group, i) => (
            <Fragment key={i}>
              {i > 0 && (
                <>
                  -<wbr />
                </>
              )}
              {group}
            </Fragment>
          ))}
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
        <button type="submit" className="primary">
          I have saved my recovery key
        </button>
      </form>
    </main>
  );
}
