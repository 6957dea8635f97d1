import { useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { usePassphraseStrength } from '../../lib/strength';

/** Passphrase, recovery key, key rotation, vault check, backup and plaintext export. */
export function SecuritySettings() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [rotatePass, setRotatePass] = useState('');
  const [recoveryKey, setRecoveryKey] = useState<string>();
  const [exportConfirm, setExportConfirm] = useState(false);
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const strength = usePassphraseStrength(next);

  const run = async (fn: () => Promise<string | undefined>) => {
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await fn());
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const changePassphrase = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      // Main refuses a weak passphrase whatever happens here; this only saves a round trip when the meter already said no.
      if (strength.assessment && !strength.assessment.acceptable) throw new Error(`The new passphrase is too weak. ${strength.hint}`);
      if (next !== confirm) throw new Error('The two new passphrases differ.');
      await call('vaultChangePassphrase', { current, next });
      setCurrent('');
      setNext('');
      setConfirm('');
      return 'Passphrase changed. Backups made before now still open with the old passphrase.';
    }).catch(() => undefined);
  };

  return (
    <section aria-labelledby="security" className="security">
      <h2 id="security">Security</h2>
      <form onSubmit={changePassphrase} aria-label="Change passphrase">
        <h3>Change passphrase</h3>
        <label>
          Current passphrase
          <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </label>
        <label>
          New passphrase
          <input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </label>
        <p className="hint">
          Strength: {next ? strength.label : '—'}. {next ? strength.hint : ''}
        </p>
        <label>
          Confirm new passphrase
          <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </label>
        <button type="submit" disabled={!current || !next}>
          Change passphrase
        </button>
      </form>
      <h3>Recovery key</h3>
      <button onClick={() => void run(async () => (setRecoveryKey((await call('vaultNewRecoveryKey')).recoveryKey), 'A new recovery key was made; the old one no longer works.'))}>Show a new recovery key</button>
      {recoveryKey && (
        <p>
          New recovery key (shown once): <output className="recovery-key">{recoveryKey}</output>{' '}
          <button onClick={() => void navigator.clipboard.writeText(recoveryKey)}>Copy</button> <button onClick={() => setRecoveryKey(undefined)}>I have saved it</button>
        </p>
      )}
      <form
        aria-label="Rotate keys"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const r = await call('vaultRotateKeys', { passphrase: rotatePass });
            setRotatePass('');
            setRecoveryKey(r.recoveryKey);
            return 'Everything was re-encrypted under a new key. Your old recovery key no longer works; save the new one shown above.';
          });
        }}
      >
        <h3>Rotate keys</h3>
        <p>Re-encrypts every memory, conversation and setting under a new key. Use it if you think the vault’s files and passphrase may both have been exposed.</p>
        <label>
          Passphrase (to rotate keys)
          <input type="password" value={rotatePass} onChange={(e) => setRotatePass(e.target.value)} />
        </label>
        <button type="submit" disabled={!rotatePass}>
          Rotate keys
        </button>
      </form>
      <h3>Check and copy</h3>
      <div className="row">
        <button onClick={() => void run(async () => { const r = await call('vaultVerify'); return r.ok ? 'The vault checks out: every file authenticates.' : `Problems found: ${r.problems.join('; ')}`; })}>Check the vault</button>
        <button onClick={() => void run(async () => ((await call('vaultBackup')).saved ? 'Encrypted backup saved. It opens with this passphrase or recovery key.' : undefined))}>Encrypted backup…</button>
        <button onClick={() => setExportConfirm(true)}>Export as plain text…</button>
      </div>
      {exportConfirm && (
        <div role="alertdialog" aria-labelledby="export-q" className="confirm">
          <p id="export-q">Plain-text export writes every memory UNENCRYPTED to a folder you choose. Anyone who can read that folder can read your memories. Delete it when you are done.</p>
          <button onClick={() => void run(async () => { setExportConfirm(false); const r = await call('vaultExportPlaintext'); return r.saved ? `Exported ${r.count} memories as plain text.` : undefined; })}>Export unencrypted</button>
          <button onClick={() => setExportConfirm(false)}>Cancel</button>
        </div>
      )}
      {status && <p role="status">{status}</p>}
      <ErrorText message={error} />
    </section>
  );
}
