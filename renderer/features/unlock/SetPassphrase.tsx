import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('unlock');
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
        <h1 id="set-pass-title">{t('setPassphrase.title')}</h1>
        <p>{t('setPassphrase.intro')}</p>
        <NewPassphraseFields state={fields} kind="next" />
        <ErrorText message={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('setPassphrase.busy') : t('setPassphrase.submit')}
        </button>
      </form>
    </main>
  );
}
