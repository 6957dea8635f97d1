import { useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';

/**
 * The rollback alarm. It cannot be dismissed: it stays at every unlock, and
 * Claude gets no memory, until the user keeps the older copy with the passphrase.
 */
export function RollbackNotice({ onAccepted }: { onAccepted: () => void }) {
  const [asking, setAsking] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const { busy, error, run } = useAction();

  const accept = (e: React.FormEvent) => {
    e.preventDefault();
    void run(passphrase ? undefined : 'Enter your passphrase to keep this copy.', async () => {
      await call('vaultAcceptRollback', { passphrase });
      setPassphrase('');
      onAccepted();
    });
  };

  return (
    <div role="alert" className="banner warning">
      <p>
        This vault is older than the newest copy this computer has seen: it may have been restored from a backup, or a sync brought back an older copy. Recent memories may be missing, and
        Claude cannot use memory until you decide. If you restored it on purpose, keep it as it is; otherwise close Mnemo and bring back the newer copy.
      </p>
      {asking ? (
        <form onSubmit={accept} aria-label="Keep this older copy">
          <PassphraseField label="Passphrase" autoFocus autoComplete="current-password" value={passphrase} onChange={setPassphrase} disabled={busy} describedBy={error ? 'rollback-error' : undefined} />
          <ErrorText message={error} id="rollback-error" />
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Keep this copy'}
          </button>
          <button type="button" className="link" onClick={() => setAsking(false)} disabled={busy}>
            Cancel
          </button>
        </form>
      ) : (
        <button onClick={() => setAsking(true)}>Keep this older copy…</button>
      )}
    </div>
  );
}
