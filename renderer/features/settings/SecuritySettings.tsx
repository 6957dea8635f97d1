import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { PassphraseField } from '../../components/PassphraseField';
import { StrengthMeter } from '../../components/StrengthMeter';
import { call, messageOf } from '../../lib/api';
import { formatNumber } from '../../lib/format';
import { usePassphraseStrength } from '../../lib/strength';
import { PassphraseConfirm } from './PassphraseConfirm';

type Place = 'passphrase' | 'kdf' | 'newkey' | 'copy' | 'rotate' | 'check';

/** Locking (the children), passphrase, recovery key, key rotation, vault check, backup and plaintext export: whatever mints a credential or lets plaintext out asks for the passphrase. */
export function SecuritySettings({ children }: { children?: ReactNode }) {
  const { t } = useTranslation('settings');
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
      if (strength.assessment && !strength.assessment.acceptable) throw new Error(t('security.passphrase.tooWeak', { hint: strength.hint }));
      if (next !== confirm) throw new Error(t('security.passphrase.differ'));
      await call('vaultChangePassphrase', { current, next });
      setCurrent('');
      setNext('');
      setConfirm('');
      return t('security.passphrase.changed');
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
      <h2 id="security">{t('security.title')}</h2>
      {children}
      <form onSubmit={changePassphrase} aria-label={t('security.passphrase.title')}>
        <h3>{t('security.passphrase.title')}</h3>
        <PassphraseField label={t('security.passphrase.current')} autoComplete="current-password" value={current} onChange={setCurrent} />
        <PassphraseField label={t('security.passphrase.new')} autoComplete="new-password" value={next} onChange={setNext} />
        <StrengthMeter strength={strength} label={t('security.passphrase.strength')} />
        <PassphraseField label={t('security.passphrase.confirm')} autoComplete="new-password" value={confirm} onChange={setConfirm} />
        <div className="row save-row">
          <button type="submit" disabled={!current || !next}>
            {t('security.passphrase.submit')}
          </button>
          {said('passphrase')}
        </div>
      </form>
      <h3>{t('security.kdf.title')}</h3>
      <p>{t('security.kdf.intro')}</p>
      <div className="row save-row">
        <button onClick={() => setKdfAsk(true)}>{t('security.kdf.open')}</button>
        {said('kdf')}
      </div>
      {kdfAsk && (
        <PassphraseConfirm
          label={t('security.kdf.label')}
          question={t('security.kdf.question')}
          action={t('security.kdf.action')}
          value={kdfPass}
          onChange={setKdfPass}
          onCancel={() => (setKdfAsk(false), setKdfPass(''))}
          onConfirm={() =>
            void run('kdf', async () => {
              const r = await call('vaultStrengthenKdf', { passphrase: kdfPass });
              setKdfPass('');
              setKdfAsk(false);
              return t('security.kdf.done', { count: r.opslimit, size: formatNumber(r.memlimitMiB) });
            })
          }
        />
      )}
      <h3>{t('security.recovery.title')}</h3>
      <div className="row save-row">
        <button onClick={() => setNewKeyAsk(true)}>{t('security.recovery.open')}</button>
        {said('newkey')}
      </div>
      {newKeyAsk && (
        <PassphraseConfirm
          label={t('security.recovery.label')}
          question={t('security.recovery.question')}
          action={t('security.recovery.action')}
          value={newKeyPass}
          onChange={setNewKeyPass}
          onCancel={() => (setNewKeyAsk(false), setNewKeyPass(''))}
          onConfirm={() =>
            void run('newkey', async () => {
              const r = await call('vaultNewRecoveryKey', { passphrase: newKeyPass });
              setNewKeyPass('');
              setNewKeyAsk(false);
              setRecoveryKey(r.recoveryKey);
              return t('security.recovery.done');
            })
          }
        />
      )}
      {recoveryKey && (
        <p>
          {t('security.recovery.shown')}{' '}
          <output className="recovery-key" translate="no">
            {recoveryKey}
          </output>{' '}
          <button onClick={() => void run('copy', async () => ((await call('clipboardWriteRecoveryKey')).copied ? t('security.recovery.copied') : t('security.recovery.noClipboard')))}>{t('security.recovery.copy')}</button>{' '}
          <button onClick={() => setRecoveryKey(undefined)}>{t('security.recovery.kept')}</button> {said('copy')}
        </p>
      )}
      <form
        aria-label={t('security.rotate.title')}
        onSubmit={(e) => {
          e.preventDefault();
          void run('rotate', async () => {
            const r = await call('vaultRotateKeys', { passphrase: rotatePass });
            setRotatePass('');
            setRecoveryKey(r.recoveryKey);
            return t('security.rotate.done');
          });
        }}
      >
        <h3>{t('security.rotate.title')}</h3>
        <p>{t('security.rotate.intro')}</p>
        <PassphraseField label={t('security.rotate.label')} autoComplete="current-password" value={rotatePass} onChange={setRotatePass} />
        <div className="row save-row">
          <button type="submit" disabled={!rotatePass}>
            {t('security.rotate.submit')}
          </button>
          {said('rotate')}
        </div>
      </form>
      <h3>{t('security.check.title')}</h3>
      <div className="row">
        <button
          onClick={() =>
            void run('check', async () => {
              const r = await call('vaultVerify');
              const said = r.ok ? t('security.check.ok') : t('security.check.problems', { problems: r.problems.join('; ') });
              // Files another computer wrote that the sync engine has not brought whole yet: said apart from damage.
              return r.waiting?.length ? `${said} ${t('security.check.waiting', { waiting: r.waiting.join('; ') })}` : said;
            })
          }
        >
          {t('security.check.verify')}
        </button>
        <button onClick={() => void run('check', async () => ((await call('vaultBackup')).saved ? t('security.check.backupSaved') : undefined))}>{t('security.check.backup')}</button>
        <button onClick={() => setExportConfirm(true)}>{t('security.check.export')}</button>
        {said('check')}
      </div>
      {exportConfirm && (
        <PassphraseConfirm
          label={t('security.export.label')}
          question={t('security.export.question')}
          action={t('security.export.action')}
          value={exportPass}
          onChange={setExportPass}
          onCancel={() => (setExportConfirm(false), setExportPass(''))}
          onConfirm={() =>
            void run('check', async () => {
              const r = await call('vaultExportPlaintext', { passphrase: exportPass });
              setExportPass('');
              setExportConfirm(false);
              return r.saved ? t('security.export.done', { count: r.count }) : undefined;
            })
          }
        />
      )}
    </section>
  );
}
