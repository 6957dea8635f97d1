import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import type { Keyed } from '../../../electron/shared/messages';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { VaultFolderChoice } from './VaultFolderChoice';
import '../../components/PrimaryButton.css';

export interface UnlockNotice {
  rolledBack: boolean;
  damaged: string[];
  /** Things main did on open that the user should know (a memory moved aside, say). */
  notices?: string[];
  /** The same notices by catalog key (main's, said in the window's language). */
  noticeKeys?: Keyed[];
  /** Unlocked with the recovery key: the app asks for a new passphrase next. */
  viaRecoveryKey?: boolean;
}

/** The unlock screen: passphrase, or the recovery key. Key derivation runs in main, so the window stays responsive. */
export function Unlock({ onUnlocked, onFolderMoved }: { onUnlocked: (notice: UnlockNotice) => void; onFolderMoved: () => void }) {
  const { t } = useTranslation('unlock');
  const [mode, setMode] = useState<'passphrase' | 'recovery'>('passphrase');
  const [secret, setSecret] = useState('');
  const { busy, error, setError, run } = useAction();
  const field = useRef<HTMLInputElement>(null);
  // A refused try puts focus back in the field (it was disabled while main checked), with the text selected to retype.
  useEffect(() => {
    if (error && !busy) {
      field.current?.focus();
      field.current?.select();
    }
  }, [error, busy]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(secret ? undefined : mode === 'passphrase' ? t('unlock.enterPassphrase') : t('unlock.enterRecoveryKey'), async () => {
      const report = mode === 'passphrase' ? await call('vaultUnlock', { passphrase: secret }) : await call('vaultUnlockWithRecoveryKey', { recoveryKey: secret });
      setSecret('');
      onUnlocked({ ...report, viaRecoveryKey: mode === 'recovery' });
    });
  };

  return (
    <main className="centered">
      <form className="card" onSubmit={submit} aria-labelledby="unlock-title" aria-busy={busy}>
        <h1 id="unlock-title">{t('unlock.title')}</h1>
        {mode === 'passphrase' ? (
          <PassphraseField
            label={t('unlock.passphrase')}
            inputRef={field}
            autoFocus
            invalid={Boolean(error)}
            describedBy={error ? 'unlock-error' : undefined}
            autoComplete="off"
            value={secret}
            onChange={setSecret}
            disabled={busy}
          />
        ) : (
          <label>
            {t('unlock.recoveryKey')}
            <input
              ref={field}
              type="text"
              dir="ltr"
              autoFocus
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'unlock-error' : undefined}
              autoComplete="off"
              spellCheck={false}
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
              disabled={busy}
            />
          </label>
        )}
        <ErrorText message={error} id="unlock-error" />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('unlock.busy') : t('unlock.submit')}
        </button>
        {busy && <progress aria-label={t('unlock.deriving')} />}
        <button
          type="button"
          className="link"
          onClick={() => {
            setMode(mode === 'passphrase' ? 'recovery' : 'passphrase');
            setSecret('');
            setError(undefined);
          }}
        >
          {mode === 'passphrase' ? t('unlock.useRecoveryKey') : t('unlock.usePassphrase')}
        </button>
        <VaultFolderChoice onMoved={onFolderMoved} />
      </form>
    </main>
  );
}
