import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';

/**
 * The rollback alarm. It cannot be dismissed: it stays at every unlock, and
 * Claude gets no memory, until the user keeps the older copy with the passphrase.
 */
export function RollbackNotice({ onAccepted }: { onAccepted: () => void }) {
  const { t } = useTranslation('unlock');
  const [asking, setAsking] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const { busy, error, run } = useAction();

  const accept = (e: React.FormEvent) => {
    e.preventDefault();
    void run(passphrase ? undefined : t('rollback.enterPassphrase'), async () => {
      await call('vaultAcceptRollback', { passphrase });
      setPassphrase('');
      onAccepted();
    });
  };

  return (
    <div role="alert" className="banner warning">
      <p>{t('rollback.warning')}</p>
      {asking ? (
        <form onSubmit={accept} aria-label={t('rollback.formLabel')}>
          <PassphraseField label={t('rollback.passphrase')} autoFocus autoComplete="current-password" value={passphrase} onChange={setPassphrase} disabled={busy} describedBy={error ? 'rollback-error' : undefined} />
          <ErrorText message={error} id="rollback-error" />
          <button type="submit" disabled={busy}>
            {busy ? t('rollback.busy') : t('rollback.keep')}
          </button>
          <button type="button" className="link" onClick={() => setAsking(false)} disabled={busy}>
            {t('rollback.cancel')}
          </button>
        </form>
      ) : (
        <button onClick={() => setAsking(true)}>{t('rollback.open')}</button>
      )}
    </div>
  );
}
