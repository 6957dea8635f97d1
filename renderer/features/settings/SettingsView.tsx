import { useEffect, useState } from 'react';
import type { PublicSettings } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { SecuritySettings } from './SecuritySettings';

/** Connection, memory behaviour and locking. The API key can be set or cleared, never read back. */
export function SettingsView() {
  const [s, setS] = useState<PublicSettings>();
  const [apiKey, setApiKey] = useState('');
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    call('settingsGet').then(setS, (e: unknown) => setError(messageOf(e)));
  }, []);
  if (!s) return <ErrorText message={error} />;

  const update = <K extends keyof PublicSettings>(k: K, v: PublicSettings[K]) => setS({ ...s, [k]: v });
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const { hasApiKey: _ignored, ...patch } = s;
      setS(await call('settingsSet', patch));
      setStatus('Settings saved.');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const saveKey = async (key: string | null) => {
    try {
      const r = await call('settingsSetApiKey', { apiKey: key });
      setS({ ...s, hasApiKey: r.hasApiKey });
      setApiKey('');
      setStatus(r.hasApiKey ? 'API key saved in the vault.' : 'API key removed.');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const test = async () => {
    setStatus('Testing the connection…');
    try {
      const r = await call('settingsTestConnection');
      setStatus(r.message);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <div className="settings">
      <section aria-labelledby="conn">
        <h2 id="conn">Connection</h2>
        <p>
          API key: <strong>{s.hasApiKey ? 'set' : 'not set'}</strong> (stored encrypted in the vault; never shown again).{' '}
          <button type="button" className="link" onClick={() => void call('openLink', { href: 'https://console.anthropic.com/settings/keys' }).catch(() => undefined)}>
            Get an API key
          </button>
        </p>
        <div className="row">
          <label>
            Anthropic API key
            <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="sk-ant-…" />
          </label>
          <button onClick={() => void saveKey(apiKey)} disabled={!apiKey.trim()}>
            Save key
          </button>
          {s.hasApiKey && <button onClick={() => void saveKey(null)}>Remove key</button>}
          <button onClick={() => void test()} disabled={!s.hasApiKey}>
            Test connection
          </button>
        </div>
      </section>
      <form onSubmit={save} aria-labelledby="behaviour">
        <h2 id="behaviour">Claude and memory</h2>
        <label>
          Model
          <input value={s.model} onChange={(e) => update('model', e.target.value)} />
        </label>
        <label>
          Max tokens per reply
          <input type="number" min={256} max={128000} value={s.maxTokens} onChange={(e) => update('maxTokens', Number(e.target.value))} />
        </label>
        <label>
          Memory guidance (what Claude should remember, and what never to store)
          <textarea rows={5} value={s.memoryGuidance} onChange={(e) => update('memoryGuidance', e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={s.approvalMode} onChange={(e) => update('approvalMode', e.target.checked)} />
          Ask me before Claude changes memory (approval mode)
        </label>
        <label>
          When Claude tries to store something that looks like a secret
          <select value={s.guardMode} onChange={(e) => update('guardMode', e.target.value as PublicSettings['guardMode'])}>
            <option value="block">Block it (recommended)</option>
            <option value="redact">Store it with the secret redacted</option>
            <option value="allow">Allow it</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={s.thinking} onChange={(e) => update('thinking', e.target.checked)} />
          Show Claude’s thinking
        </label>
        <label className="check">
          <input type="checkbox" checked={s.compaction} onChange={(e) => update('compaction', e.target.checked)} />
          Compact long conversations
        </label>
        <label>
          Lock after this many idle minutes (0 = never)
          <input type="number" min={0} max={1440} value={s.autoLockMinutes} onChange={(e) => update('autoLockMinutes', Number(e.target.value))} />
        </label>
        <label>
          Versions kept per memory
          <input type="number" min={1} max={200} value={s.historyDepth} onChange={(e) => update('historyDepth', Number(e.target.value))} />
        </label>
        <button type="submit">Save settings</button>
      </form>
      {status && <p role="status">{status}</p>}
      <ErrorText message={error} />
      <SecuritySettings />
    </div>
  );
}
