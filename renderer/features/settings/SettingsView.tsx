import { useEffect, useState } from 'react';
import type { PublicSettings } from '../../../electron/shared/ipc';
import type { SettingsPatch } from '../../../electron/shared/settings';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf } from '../../lib/api';
import { ConnectionSettings } from './ConnectionSettings';
import { LanguageSettings } from './LanguageSettings';
import { ModelPicker } from './ModelPicker';
import { OtherAppsSettings } from './OtherAppsSettings';
import { PassphraseConfirm } from './PassphraseConfirm';
import { SecuritySettings } from './SecuritySettings';

type Section = 'claude' | 'security' | 'apps';
const FIELDS: Record<Section, Field[]> = {
  claude: ['model', 'maxTokens', 'maxToolRounds', 'memoryGuidance', 'approvalMode', 'guardMode', 'thinking', 'autoTitle', 'compaction', 'historyDepth'],
  security: ['autoLockMinutes'],
  apps: ['mcpAccess', 'mcpNewClientsReadOnly'],
};
const ACCESS: Array<[PublicSettings['mcpAccess'], string]> = [
  ['off', 'No access (other apps are refused)'],
  ['read-only', 'View memories only'],
  ['read-write', 'View and change memories'],
];
type Field = Exclude<keyof SettingsPatch, 'contextManagement'>;
const pick = (s: PublicSettings, keys: Field[]): Partial<PublicSettings> => Object.fromEntries(keys.map((k) => [k, s[k]])) as Partial<PublicSettings>;

/**
 * Settings in three sections — Connection, Claude and memory, Security — each
 * saved on its own, with its status beside its button. Saving one section
 * leaves unsaved changes in another as they are. A change that weakens a
 * protection is main's to allow: when it asks for the passphrase, the section
 * asks for it in place and keeps every value the user set.
 */
export function SettingsView() {
  const [s, setS] = useState<PublicSettings>();
  const [status, setStatus] = useState<Partial<Record<Section, string>>>({});
  const [errors, setErrors] = useState<Partial<Record<Section, string>>>({});
  const [loadError, setLoadError] = useState<string>();
  /** The section main wants the passphrase for (its question), while the user is asked. */
  const [consent, setConsent] = useState<{ section: Section; question: string; error?: string }>();
  const [consentPass, setConsentPass] = useState('');

  useEffect(() => {
    call('settingsGet').then(setS, (e: unknown) => setLoadError(messageOf(e)));
  }, []);
  if (!s) return <ErrorText message={loadError} />;

  const update = <K extends keyof PublicSettings>(k: K, v: PublicSettings[K]) => {
    setS({ ...s, [k]: v });
    const section = (Object.keys(FIELDS) as Section[]).find((sec) => FIELDS[sec].includes(k as Field));
    if (section) setStatus((st) => ({ ...st, [section]: undefined }));
  };
  const send = async (section: Section, passphrase?: string) => {
    setErrors((er) => ({ ...er, [section]: undefined }));
    try {
      const saved = await call('settingsSet', { ...pick(s, FIELDS[section]), ...(passphrase !== undefined ? { passphrase } : {}) });
      setS((now) => (now ? { ...now, ...pick(saved, FIELDS[section]) } : saved));
      setStatus((st) => ({ ...st, [section]: 'Settings saved.' }));
      setConsent(undefined);
      setConsentPass('');
    } catch (err) {
      setStatus((st) => ({ ...st, [section]: undefined }));
      // Main wants the passphrase: ask for it here; the values stay as the user set them.
      if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') setConsent({ section, question: err.message });
      else if (passphrase !== undefined) setConsent((c) => c && { ...c, error: messageOf(err) });
      else setErrors((er) => ({ ...er, [section]: messageOf(err) }));
    }
  };
  const save = (section: Section) => (e: React.FormEvent) => {
    e.preventDefault();
    void send(section);
  };
  const askPassphrase = (section: Section) =>
    consent?.section === section && (
      <PassphraseConfirm
        label="Passphrase (to allow this change)"
        question={consent.question}
        action="Save with passphrase"
        value={consentPass}
        error={consent.error}
        onChange={setConsentPass}
        onCancel={() => (setConsent(undefined), setConsentPass(''))}
        onConfirm={() => void send(section, consentPass)}
      />
    );
  const saveRow = (section: Section, label: string) => (
    <div className="row save-row">
      <button type="submit">{label}</button>
      {status[section] && (
        <span role="status" className="saved">
          {status[section]}
        </span>
      )}
      <ErrorText message={errors[section]} />
    </div>
  );

  return (
    <div className="settings">
      <ConnectionSettings keyStatus={s} onKeyStatus={(k) => setS((now) => (now ? { ...now, ...k } : now))} />
      <section aria-labelledby="behaviour">
        <h2 id="behaviour">Claude and memory</h2>
        <form onSubmit={save('claude')} aria-labelledby="behaviour">
          <ModelPicker value={s.model} onChange={(m) => update('model', m)} keyStatus={`${s.apiKeySource}:${s.hasApiKey}`} />
          <label>
            Max tokens per reply
            <input type="number" min={256} max={128000} value={s.maxTokens} onChange={(e) => update('maxTokens', Number(e.target.value))} />
          </label>
          <label>
            Tool rounds per turn (then Continue asks before going on)
            <input type="number" min={1} max={500} value={s.maxToolRounds} onChange={(e) => update('maxToolRounds', Number(e.target.value))} />
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
            <input type="checkbox" checked={s.autoTitle} onChange={(e) => update('autoTitle', e.target.checked)} />
            Name new conversations automatically (one short request to a small model after the first reply; never for temporary chats)
          </label>
          <label className="check">
            <input type="checkbox" checked={s.compaction} onChange={(e) => update('compaction', e.target.checked)} />
            Compact long conversations
          </label>
          <label>
            Versions kept per memory
            <input type="number" min={1} max={200} value={s.historyDepth} onChange={(e) => update('historyDepth', Number(e.target.value))} />
          </label>
          {saveRow('claude', 'Save Claude and memory settings')}
        </form>
        {askPassphrase('claude')}
      </section>
      <SecuritySettings>
        <form onSubmit={save('security')} aria-label="Locking">
          <label>
            Lock after this many idle minutes (0 = never)
            <input type="number" min={0} max={1440} value={s.autoLockMinutes} onChange={(e) => update('autoLockMinutes', Number(e.target.value))} />
          </label>
          {saveRow('security', 'Save security settings')}
        </form>
        {askPassphrase('security')}
      </SecuritySettings>
      <OtherAppsSettings>
        <form onSubmit={save('apps')} aria-label="Access for other apps">
          <fieldset>
            <legend>What other apps may do while Mnemo is unlocked</legend>
            {ACCESS.map(([value, label]) => (
              <label key={value} className="check">
                <input type="radio" name="mcp-access" value={value} checked={s.mcpAccess === value} onChange={() => update('mcpAccess', value)} />
                {label}
              </label>
            ))}
          </fieldset>
          <label className="check">
            <input type="checkbox" checked={s.mcpNewClientsReadOnly} onChange={(e) => update('mcpNewClientsReadOnly', e.target.checked)} />
            Apps that connect for the first time may only view memories (until you let each one change them, below)
          </label>
          <p className="hint">Allowing more asks for your passphrase. An app given your passphrase can still open the vault itself while Mnemo is locked or closed.</p>
          {saveRow('apps', 'Save access for other apps')}
        </form>
        {askPassphrase('apps')}
      </OtherAppsSettings>
      <LanguageSettings />
    </div>
  );
}
