import { ErrorText } from '../../components/ErrorText';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { NewPassphraseFields, useNewPassphrase } from './NewPassphrase';
import '../../components/PrimaryButton.css';

/**
 * Right after an unlock with the recovery key: the passphrase was most likely
 * forgotten, so the way back in ends with a new one. Main allows this call
 * only in a session unlocked with the recovery key, and refuses weak passphrases.
 */
export function SetPassphrase({ onDone }: { onDone: () => void }) {
  const fields = useNewPassphrase();
  const { busy, error, run } = useAction();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(fields.problem(), async () => {
      await call('vaultSetPassphrase', { next: fields.pass });
      fields.clear();
      onDone();
    });
  };

  return (
    <main className="centered">
      <form className="card" onSubmit={submit} aria-labelledby="set-pass-title" aria-busy={busy}>
        <h1 id="set-pass-title">Choose a new passphrase</h1>
        <p>You unlocked with the recovery key. Choose a new passphrase for everyday unlocking; your recovery key keeps working. Backups made before now still open with the old passphrase.</p>
        <NewPassphraseFields state={fields} label="New passphrase" />
        <ErrorText message={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Setting the passphrase… (deriving the key)' : 'Set passphrase'}
        </button>
      </form>
    </main>
  );
}
