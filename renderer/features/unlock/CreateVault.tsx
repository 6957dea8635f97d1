import { Fragment, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { VaultFolderChoice } from './VaultFolderChoice';
import { NewPassphraseFields, useNewPassphrase } from './NewPassphrase';
import '../../components/PrimaryButton.css';

/** First run: choose a passphrase, then keep the recovery key (shown once). */
export function CreateVault({ onDone, onFolderMoved }: { onDone: () => void; onFolderMoved: () => void }) {
  const { t } = useTranslation('unlock');
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
        <h1 id="create-title">{t('create.title')}</h1>
        <p>{t('create.intro')}</p>
        <NewPassphraseFields state={fields} />
        <ErrorText message={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('create.busy') : t('create.submit')}
        </button>
        <VaultFolderChoice onMoved={onFolderMoved} />
      </form>
    </main>
  );
}

function RecoveryKeyStep({ recoveryKey, onDone }: { recoveryKey: string; onDone: () => void }) {
  const { t } = useTranslation('unlock');
  const [check, setCheck] = useState('');
  const [error, setError] = useState<string>();
  const [copied, setCopied] = useState(false);
  const lastGroup = recoveryKey.split('-').at(-1) ?? '';
  const title = useRef<HTMLHeadingElement>(null);
  // The form that was focused is gone: start this screen at its heading, so a screen reader reads it from the top.
  useEffect(() => title.current?.focus(), []);
  const save = () => {
    const blob = new Blob([t('recoveryKey.fileText', { key: recoveryKey })], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = t('recoveryKey.fileName');
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const finish = (e: React.FormEvent) => {
    e.preventDefault();
    if (check.trim().toUpperCase() !== lastGroup) return setError(t('recoveryKey.mismatch'));
    onDone();
  };
  return (
    <main className="centered">
      <form className="card" onSubmit={finish} aria-labelledby="rk-title">
        <h1 id="rk-title" ref={title} tabIndex={-1}>
          {t('recoveryKey.title')}
        </h1>
        <p>{t('recoveryKey.intro')}</p>
        {/* Letters and digits read left to right in every language. */}
        <output className="recovery-key" aria-label={t('recoveryKey.label')} dir="ltr" translate="no">
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
            {copied ? t('recoveryKey.copied') : t('recoveryKey.copy')}
          </button>
          <button type="button" onClick={save}>
            {t('recoveryKey.save')}
          </button>
        </div>
        <label>
          {t('recoveryKey.check', { count: lastGroup.length })}
          <input value={check} onChange={(e) => setCheck(e.target.value)} autoComplete="off" dir="ltr" />
        </label>
        <ErrorText message={error} />
        <button type="submit" className="primary">
          {t('recoveryKey.done')}
        </button>
      </form>
    </main>
  );
}
