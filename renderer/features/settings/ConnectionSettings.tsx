import { useState } from 'react';
import type { ApiKeySource } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf } from '../../lib/api';
import { PassphraseConfirm } from './PassphraseConfirm';

export type KeyStatus = { hasApiKey: boolean; apiKeySource: ApiKeySource };
export const CONSOLE_KEYS_URL = 'https://console.anthropic.com/settings/keys';

/** Says where the key a chat would use comes from; never the key. */
export function keySourceText(k: KeyStatus): string {
  if (k.apiKeySource === 'environment') return 'from the ANTHROPIC_API_KEY environment variable' + (k.hasApiKey ? ' (used instead of the key stored in the vault)' : '');
  return k.apiKeySource === 'vault' ? 'set (stored encrypted in the vault; never shown again)' : 'not set';
}

/**
 * The API key (set, replaced or removed; never read back) and a connection
 * test. Used in Settings and on first run, right after the recovery key.
 */
export function ApiKeyFields({ keyStatus, onKeyStatus, autoFocus }: { keyStatus: KeyStatus; onKeyStatus: (k: KeyStatus) => void; autoFocus?: boolean }) {
  const [apiKey, setApiKey] = useState('');
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  /** Main wants the passphrase to replace or remove the stored key: what was asked, and main's question. */
  const [consent, setConsent] = useState<{ key: string | null; question: string; error?: string }>();
  const [passphrase, setPassphrase] = useState('');
  const run = async (fn: () => Promise<string>) => {
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await fn());
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const saveKey = (key: string | null, withPassphrase?: string) =>
    run(async () => {
      try {
        const r = await call('settingsSetApiKey', { apiKey: key, ...(withPassphrase !== undefined ? { passphrase: withPassphrase } : {}) });
        onKeyStatus(r);
        setApiKey('');
        setConsent(undefined);
        setPassphrase('');
        return r.hasApiKey ? 'API key saved in the vault.' : 'API key removed.';
      } catch (err) {
        // The typed key stays in its field while main asks for the passphrase (or after a wrong one).
        if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') {
          setConsent({ key, question: err.message });
          return '';
        }
        if (withPassphrase !== undefined) {
          setConsent((c) => c && { ...c, error: messageOf(err) });
          return '';
        }
        throw err;
      }
    });
  return (
    <>
      <p>
        API key: <strong>{keySourceText(keyStatus)}</strong>.{' '}
        <button type="button" className="link" onClick={() => void call('openLink', { href: CONSOLE_KEYS_URL }).catch(() => undefined)}>
          Get an API key
        </button>
      </p>
      <form
        className="row"
        aria-label="API key"
        onSubmit={(e) => {
          e.preventDefault();
          if (apiKey.trim()) void saveKey(apiKey);
        }}
      >
        <label>
          Anthropic API key
          <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="sk-ant-…" autoFocus={autoFocus} />
        </label>
        <button type="submit" disabled={!apiKey.trim()}>
          Save key
        </button>
      </form>
      <div className="row save-row">
        {keyStatus.hasApiKey && <button onClick={() => void saveKey(null)}>Remove key</button>}
        <button
          onClick={() =>
            void run(async () => {
              setStatus('Testing the connection…');
              return (await call('settingsTestConnection')).message;
            })
          }
          disabled={keyStatus.apiKeySource === 'none'}
        >
          Test connection
        </button>
        {status && (
          <span role="status" className="saved">
            {status}
          </span>
        )}
        <ErrorText message={error} />
      </div>
      {consent && (
        <PassphraseConfirm
          label="Passphrase (to allow this change)"
          question={consent.question}
          action={consent.key === null ? 'Remove key with passphrase' : 'Save key with passphrase'}
          value={passphrase}
          error={consent.error}
          onChange={setPassphrase}
          onCancel={() => (setConsent(undefined), setPassphrase(''))}
          onConfirm={() => void saveKey(consent.key, passphrase)}
        />
      )}
    </>
  );
}

/** The Connection section of Settings. */
export function ConnectionSettings({ keyStatus, onKeyStatus }: { keyStatus: KeyStatus; onKeyStatus: (k: KeyStatus) => void }) {
  return (
    <section aria-labelledby="conn">
      <h2 id="conn">Connection</h2>
      <ApiKeyFields keyStatus={keyStatus} onKeyStatus={onKeyStatus} />
    </section>
  );
}
