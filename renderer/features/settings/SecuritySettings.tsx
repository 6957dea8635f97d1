import { useState, type ReactNode } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { StrengthMeter } from '../../components/StrengthMeter';
import { call, messageOf } from '../../lib/api';
import { usePassphraseStrength } from '../../lib/strength';
import { PassphraseConfirm } from './PassphraseConfirm';

type Place = 'passphrase' | 'kdf' | 'newkey' | 'copy' | 'rotate' | 'check';

/** Locking (the children), passphrase, recovery key, key rotation, vault check, backup and plaintext export: whatever mints a credential or lets plaintext out asks for the passphrase. */
export function SecuritySettings({ children }: { children?: ReactNode }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [rotatePass, setRotatePass] = useState('');
  const [recoveryKey, setRecoveryKey] = useState<string>();
  const [exportConfirm, setExportConfirm] = useState(false);
  const [exportPass, setExportPass] = useState('');
  const [newKeyAsk, setNewKeyAsk] = useState(false);
  const [newKeyPass, setNewKeyPass] = useState('');
  const [kdfAsk, setKdfAsk] = useState(false);
  const [kdfPass, setKdfPass] = useState('');
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const strength = usePassphraseStrength(next);

  /** Which action the status and error belong to: they are shown beside that action's button. */
  const [at, setAt] = useState<Place>();
  const run = async (place: Place, fn: () => Promise<string | undefined>) => {
    setAt(place);
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
    void run('passphrase', async () => {
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

  const said = (place: Place) =>
    at === place && (
      <>
        {status && (
          <span role="status" className="saved">
            {status}
          </span>
        )}
        <ErrorText message={error} />
      </>
    );

  return (
    <section aria-labelledby="security" className="security">
      <h2 id="security">Security</h2>
      {children}
      <form onSubmit={changePassphrase} aria-label="Change passphrase">
        <h3>Change passphrase</h3>
        <PassphraseField label="Current passphrase" autoComplete="current-password" value={current} onChange={setCurrent} />
        <PassphraseField label="New passphrase" autoComplete="new-password" value={next} onChange={setNext} />
        <StrengthMeter strength={strength} label="New passphrase strength" />
        <PassphraseField label="Confirm new passphrase" autoComplete="new-password" value={confirm} onChange={setConfirm} />
        <div className="row save-row">
          <button type="submit" disabled={!current || !next}>
            Change passphrase
          </button>
          {said('passphrase')}
        </div>
      </form>
      <h3>Key derivation</h3>
      <p>Your passphrase is stretched with Argon2id so that each guess costs an attacker time. Strengthen it to this computer’s current measure (or one more pass); unlocking takes a little longer.</p>
      <div className="row save-row">
        <button onClick={() => setKdfAsk(true)}>Strengthen key derivation…</button>
        {said('kdf')}
      </div>
      {kdfAsk && (
        <PassphraseConfirm
          label="Passphrase (to strengthen key derivation)"
          question="Mnemo measures this computer, then re-derives your passphrase’s key at the higher cost. Backups made before now keep the old cost."
          action="Strengthen"
          value={kdfPass}
          onChange={setKdfPass}
          onCancel={() => (setKdfAsk(false), setKdfPass(''))}
          onConfirm={() =>
            void run('kdf', async () => {
              const r = await call('vaultStrengthenKdf', { passphrase: kdfPass });
              setKdfPass('');
              setKdfAsk(false);
              return `Key derivation now uses ${r.opslimit} passes and ${r.memlimitMiB} MiB of memory.`;
            })
          }
        />
      )}
      <h3>Recovery key</h3>
      <div className="row save-row">
        <button onClick={() => setNewKeyAsk(true)}>Show a new recovery key</button>
        {said('newkey')}
      </div>
      {newKeyAsk && (
        <PassphraseConfirm
          label="Passphrase (to make a new recovery key)"
          question="A new recovery key replaces the old one: the key you saved before stops working. Enter your passphrase to go on."
          action="Make a new recovery key"
          value={newKeyPass}
          onChange={setNewKeyPass}
          onCancel={() => (setNewKeyAsk(false), setNewKeyPass(''))}
          onConfirm={() =>
            void run('newkey', async () => {
              const r = await call('vaultNewRecoveryKey', { passphrase: newKeyPass });
              setNewKeyPass('');
              setNewKeyAsk(false);
              setRecoveryKey(r.recoveryKey);
              return 'A new recovery key was made; the old one no longer works.';
            })
          }
        />
      )}
      {recoveryKey && (
        <p>
          New recovery key (shown once): <output className="recovery-key">{recoveryKey}</output>{' '}
          <button onClick={() => void run('copy', async () => ((await call('clipboardWriteRecoveryKey')).copied ? 'Copied. The clipboard is cleared in a minute.' : 'Copying is not available here; write the key down.'))}>Copy</button>{' '}
          <button onClick={() => setRecoveryKey(undefined)}>I have saved it</button> {said('copy')}
        </p>
      )}
      <form
        aria-label="Rotate keys"
        onSubmit={(e) => {
          e.preventDefault();
          void run('rotate', async () => {
            const r = await call('vaultRotateKeys', { passphrase: rotatePass });
            setRotatePass('');
            setRecoveryKey(r.recoveryKey);
            return 'Everything was re-encrypted under a new key. Your old recovery key no longer works; save the new one shown above.';
          });
        }}
      >
        <h3>Rotate keys</h3>
        <p>Re-encrypts every memory, conversation and setting under a new key. Use it if you think the vault’s files and passphrase may both have been exposed.</p>
        <PassphraseField label="Passphrase (to rotate keys)" autoComplete="current-password" value={rotatePass} onChange={setRotatePass} />
        <div className="row save-row">
          <button type="submit" disabled={!rotatePass}>
            Rotate keys
          </button>
          {said('rotate')}
        </div>
      </form>
      <h3>Check and copy</h3>
      <div className="row">
        <button onClick={() => void run('check', async () => { const r = await call('vaultVerify'); return r.ok ? 'The vault checks out: every file authenticates.' : `Problems found: ${r.problems.join('; ')}`; })}>Check the vault</button>
        <button onClick={() => void run('check', async () => ((await call('vaultBackup')).saved ? 'Encrypted backup saved. It opens with this passphrase or recovery key.' : undefined))}>Encrypted backup…</button>
        <button onClick={() => setExportConfirm(true)}>Export as plain text…</button>
        {said('check')}
      </div>
      {exportConfirm && (
        <PassphraseConfirm
          label="Passphrase (to export)"
          question="Plain-text export writes every memory UNENCRYPTED to a folder you choose. Anyone who can read that folder can read your memories. Delete it when you are done."
          action="Export unencrypted"
          value={exportPass}
          onChange={setExportPass}
          onCancel={() => (setExportConfirm(false), setExportPass(''))}
          onConfirm={() =>
            void run('check', async () => {
              const r = await call('vaultExportPlaintext', { passphrase: exportPass });
              setExportPass('');
              setExportConfirm(false);
              return r.saved ? `Exported ${r.count} memories as plain text.` : undefined;
            })
          }
        />
      )}
    </section>
  );
}
