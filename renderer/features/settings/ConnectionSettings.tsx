import { useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ApiKeySource } from '../../../electron/shared/ipc-values';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { ApiError, call, messageOf } from '../../lib/api';
import { PassphraseConfirm } from './PassphraseConfirm';

export type KeyStatus = { hasApiKey: boolean; apiKeySource: ApiKeySource };
export const CONSOLE_KEYS_URL = 'https://console.anthropic.com/settings/keys';

/** Where the key a chat would use comes from (the catalog sentence; its state said in bold), never the key. */
export function keySourceKey(k: KeyStatus) {
  if (k.apiKeySource === 'environment') return k.hasApiKey ? ('apiKey.source.environmentOverVault' as const) : ('apiKey.source.environment' as const);
  return k.apiKeySource === 'vault' ? ('apiKey.source.vault' as const) : ('apiKey.source.none' as const);
}

/** A save refused because of the key itself (shown at the key field); `unchecked`: the API could not be asked, so the user may save it anyway. */
type KeyProblem = { message: string; unchecked: boolean };
const KEY_PROBLEMS = new Set(['KEY_REFUSED', 'KEY_UNCHECKED', 'INVALID', 'LIMIT']);

/**
 * The API key (set, replaced or removed; never read back) and a connection
 * test. Used in Settings and on first run, right after the recovery key. A new
 * key is tested with the API before main stores it: a refused one is reported
 * at the field, with the focus back in it and nothing saved.
 */
/** `primarySave`: Save key is the step's main action (first run, before a key is there). */
export function ApiKeyFields({ keyStatus, onKeyStatus, autoFocus, primarySave }: { keyStatus: KeyStatus; onKeyStatus: (k: KeyStatus) => void; autoFocus?: boolean; primarySave?: boolean }) {
  const { t } = useTranslation('settings');
  const [apiKey, setApiKey] = useState('');
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const [keyProblem, setKeyProblem] = useState<KeyProblem>();
  const [checking, setChecking] = useState(false);
  /** Main wants the passphrase to replace or remove the stored key: what was asked, and main's question. */
  const [consent, setConsent] = useState<{ key: string | null; question: string; checked: boolean; error?: string }>();
  const [passphrase, setPassphrase] = useState('');
  const keyField = useRef<HTMLInputElement>(null);
  const problemId = useId();
  // A key refused (or not checkable) puts the focus back in its field, text selected to fix or retype; the message is announced.
  useEffect(() => {
    if (keyProblem) {
      keyField.current?.focus();
      keyField.current?.select();
    }
  }, [keyProblem]);

  const run = async (fn: () => Promise<string>) => {
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await fn());
    } catch (err) {
      setError(messageOf(err));
    }
  };
  /**
   * `check`: main asks the API about the key before storing it. `checked`: it already did, before asking for the
   * passphrase. Neither: the user chose to save it unchecked.
   */
  const saveKey = (key: string | null, opts: { passphrase?: string; check?: boolean; checked?: boolean } = {}) =>
    run(async () => {
      setKeyProblem(undefined);
      if (opts.check) setStatus(t('apiKey.checking'));
      setChecking(Boolean(opts.check));
      try {
        const r = await call('settingsSetApiKey', { apiKey: key, ...(opts.passphrase !== undefined ? { passphrase: opts.passphrase } : {}), ...(opts.check ? { check: true } : {}) });
        onKeyStatus(r);
        setApiKey('');
        setConsent(undefined);
        setPassphrase('');
        if (!r.hasApiKey) return t('apiKey.removed');
        return opts.check || opts.checked ? t('apiKey.savedChecked') : t('apiKey.savedUnchecked');
      } catch (err) {
        // The typed key stays in its field while main asks for the passphrase (or after a wrong one). Main checked the key first, so it is not checked again.
        if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') {
          setConsent({ key, question: messageOf(err), checked: Boolean(opts.check || opts.checked) });
          return '';
        }
        if (key !== null && err instanceof ApiError && KEY_PROBLEMS.has(err.code)) {
          setConsent(undefined);
          setPassphrase('');
          setKeyProblem({ message: messageOf(err), unchecked: err.code === 'KEY_UNCHECKED' });
          return '';
        }
        if (opts.passphrase !== undefined) {
          setConsent((c) => c && { ...c, error: messageOf(err) });
          return '';
        }
        throw err;
      } finally {
        setChecking(false);
      }
    });
  return (
    <>
      <p className="key-status">
        <Trans t={t} i18nKey={keySourceKey(keyStatus)} values={{ variable: 'ANTHROPIC_API_KEY' }} components={[<strong />]} />{' '}
        <button type="button" className="link" onClick={() => void call('openLink', { href: CONSOLE_KEYS_URL }).catch(() => undefined)}>
          {t('apiKey.get')}
        </button>
      </p>
      <form
        className="api-key-form"
        aria-label={t('apiKey.formLabel')}
        aria-busy={checking}
        onSubmit={(e) => {
          e.preventDefault();
          if (apiKey.trim() && !checking) void saveKey(apiKey, { check: true });
        }}
      >
        <div className="row">
          {/* The same Show/Hide toggle as the passphrase: a pasted key can be checked before it is saved. */}
          <PassphraseField
            label={t('apiKey.field')}
            what={t('apiKey.toggleName')}
            inputRef={keyField}
            autoComplete="off"
            value={apiKey}
            readOnly={checking}
            invalid={Boolean(keyProblem)}
            describedBy={keyProblem ? problemId : undefined}
            onChange={(v) => {
              setApiKey(v);
              setKeyProblem(undefined);
            }}
            // The shape of a key, not words: the same in every language.
            placeholder="sk-ant-…"
            literal
            autoFocus={autoFocus}
          />
          <button type="submit" className={primarySave ? 'primary' : undefined} disabled={!apiKey.trim() || checking}>
            {t('apiKey.save')}
          </button>
        </div>
        <ErrorText message={keyProblem?.message} id={problemId} />
        {keyProblem?.unchecked && (
          <button type="button" onClick={() => void saveKey(apiKey, {})}>
            {t('apiKey.saveUnchecked')}
          </button>
        )}
      </form>
      <div className="row save-row">
        {keyStatus.hasApiKey && <button onClick={() => void saveKey(null)}>{t('apiKey.remove')}</button>}
        <button
          onClick={() =>
            void run(async () => {
              setStatus(t('apiKey.testing'));
              return (await call('settingsTestConnection')).message;
            })
          }
          disabled={keyStatus.apiKeySource === 'none'}
        >
          {t('apiKey.test')}
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
          label={t('consent.label')}
          question={consent.question}
          action={consent.key === null ? t('apiKey.removeWithPassphrase') : t('apiKey.saveWithPassphrase')}
          value={passphrase}
          error={consent.error}
          onChange={setPassphrase}
          onCancel={() => (setConsent(undefined), setPassphrase(''))}
          onConfirm={() => void saveKey(consent.key, { passphrase, checked: consent.checked })}
        />
      )}
    </>
  );
}

/** The Connection section of Settings. */
export function ConnectionSettings({ keyStatus, onKeyStatus }: { keyStatus: KeyStatus; onKeyStatus: (k: KeyStatus) => void }) {
  const { t } = useTranslation('settings');
  return (
    <section aria-labelledby="conn">
      <h2 id="conn">{t('connection.title')}</h2>
      <ApiKeyFields keyStatus={keyStatus} onKeyStatus={onKeyStatus} />
    </section>
  );
}
