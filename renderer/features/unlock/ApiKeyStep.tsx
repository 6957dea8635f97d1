import { useEffect, useState } from 'react';
import { call } from '../../lib/api';
import { ApiKeyFields, type KeyStatus } from '../settings/ConnectionSettings';
import '../../components/PrimaryButton.css';

/**
 * First run, after the recovery key: connect to Claude. The key is stored
 * encrypted in the vault just created; one from ANTHROPIC_API_KEY is shown as
 * such. It can be skipped and set later in Settings.
 */
export function ApiKeyStep({ onDone }: { onDone: () => void }) {
  const [keyStatus, setKeyStatus] = useState<KeyStatus>();
  useEffect(() => {
    call('settingsGet').then(setKeyStatus, () => setKeyStatus({ hasApiKey: false, apiKeySource: 'none' }));
  }, []);
  const connected = keyStatus !== undefined && keyStatus.apiKeySource !== 'none';
  return (
    <main className="centered">
      <div className="card" role="group" aria-labelledby="key-title">
        <h1 id="key-title">Connect to Claude</h1>
        <p>Mnemo talks to Claude with your Anthropic API key. It is stored encrypted in your vault and sent only to Anthropic.</p>
        {keyStatus && <ApiKeyFields keyStatus={keyStatus} onKeyStatus={setKeyStatus} autoFocus={keyStatus.apiKeySource === 'none'} />}
        {/* Continue is the way forward once a key is there; until then skipping is a quiet way out, not the main action. */}
        <button type="button" className={connected ? 'primary' : undefined} onClick={onDone} autoFocus={connected}>
          {connected ? 'Continue' : 'Skip for now (set it later in Settings)'}
        </button>
      </div>
    </main>
  );
}
