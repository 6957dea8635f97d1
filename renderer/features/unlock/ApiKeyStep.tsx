import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { ApiKeyFields, type KeyStatus } from '../settings/ConnectionSettings';
import '../../components/PrimaryButton.css';

/**
 * First run, after the recovery key: connect to Claude. The key is stored
 * encrypted in the vault just created; one from ANTHROPIC_API_KEY is shown as
 * such. It can be skipped and set later in Settings.
 */
export function ApiKeyStep({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation('unlock');
  const [keyStatus, setKeyStatus] = useState<KeyStatus>();
  useEffect(() => {
    call('settingsGet').then(setKeyStatus, () => setKeyStatus({ hasApiKey: false, apiKeySource: 'none' }));
  }, []);
  const connected = keyStatus !== undefined && keyStatus.apiKeySource !== 'none';
  return (
    <main className="centered">
      <div className="card" role="group" aria-labelledby="key-title">
        <h1 id="key-title">{t('apiKey.title')}</h1>
        <p>{t('apiKey.intro')}</p>
        {keyStatus && (
          <div className="api-key-fields">
            <ApiKeyFields keyStatus={keyStatus} onKeyStatus={setKeyStatus} autoFocus={keyStatus.apiKeySource === 'none'} primarySave={!connected} />
          </div>
        )}
        {/* Continue is the way forward once a key is there; until then Save key is, and skipping is a quiet way out (words only). */}
        <button type="button" className={connected ? 'primary' : 'quiet skip'} onClick={onDone} autoFocus={connected}>
          {connected ? t('apiKey.continue') : t('apiKey.skip')}
        </button>
      </div>
    </main>
  );
}
