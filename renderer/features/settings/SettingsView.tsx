import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { NameDrafts } from '../../../electron/shared/drafts';
import type { PublicSettings } from '../../../electron/shared/ipc-values';
import type { SettingsPatch } from '../../../electron/shared/settings';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf } from '../../lib/api';
import { ConnectionSettings } from './ConnectionSettings';
import { DevicesSettings } from './DevicesSettings';
import { LanguageSettings } from './LanguageSettings';
import { ModelPicker } from './ModelPicker';
import { OtherAppsSettings } from './OtherAppsSettings';
import { PassphraseConfirm } from './PassphraseConfirm';
import { SecuritySettings } from './SecuritySettings';
import { VaultFolderChoice } from '../unlock/VaultFolderChoice';

type Section = 'claude' | 'security' | 'apps';
const FIELDS: Record<Section, Field[]> = {
  claude: ['model', 'maxTokens', 'maxToolRounds', 'memoryGuidance', 'approvalMode', 'guardMode', 'thinking', 'autoTitle', 'compaction', 'historyDepth'],
  security: ['autoLockMinutes'],
  apps: ['mcpAccess', 'mcpNewClientsReadOnly'],
};
const ACCESS = {
  off: 'otherApps.access.off',
  'read-only': 'otherApps.access.readOnly',
  'read-write': 'otherApps.access.readWrite',
} as const satisfies Record<PublicSettings['mcpAccess'], string>;
const GUARD = {
  block: 'claude.guard.block',
  redact: 'claude.guard.redact',
  allow: 'claude.guard.allow',
} as const satisfies Record<PublicSettings['guardMode'], string>;
type Field = Exclude<keyof SettingsPatch, 'contextManagement'>;
/** The sections in page order: each heading's id and its name in the section list. */
const NAV = [
  ['conn', 'connection.title'],
  ['behaviour', 'claude.title'],
  ['security', 'security.title'],
  ['vault-folder', 'vaultFolder.title'],
  ['other-apps', 'nav.otherApps'],
  ['devices', 'nav.otherComputers'],
  ['language', 'language.title'],
] as const;
/** One setting as a group of radio buttons (arrow keys move between them), each choice said in full by `labels`. */
function RadioChoices<V extends string>({ legend, name, labels, value, onChange, className }: { legend: string; name: string; labels: Record<V, string>; value: V; onChange: (v: V) => void; className?: string }) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {(Object.keys(labels) as V[]).map((v) => (
        <label key={v} className="check">
          <input type="radio" name={name} value={v} checked={value === v} onChange={() => onChange(v)} />
          {labels[v]}
        </label>
      ))}
    </fieldset>
  );
}

const pick = (s: PublicSettings, keys: Field[]): Partial<PublicSettings> => Object.fromEntries(keys.map((k) => [k, s[k]])) as Partial<PublicSettings>;

/**
 * Settings in three sections — Connection, Claude and memory, Security — each
 * saved on its own, with its status beside its button. Saving one section
 * leaves unsaved changes in another as they are. A change that weakens a
 * protection is main's to allow: when it asks for the passphrase, the section
 * asks for it in place and keeps every value the user set.
 */
export function SettingsView({ onFolderMoved, restoredNames }: { onFolderMoved: () => void; restoredNames?: NameDrafts }) {
  const { t } = useTranslation('settings');
  const [s, setS] = useState<PublicSettings>();
  const [status, setStatus] = useState<Partial<Record<Section, string>>>({});
  const [errors, setErrors] = useState<Partial<Record<Section, string>>>({});
  const [loadError, setLoadError] = useState<string>();
  /** The section main wants the passphrase for (its question), while the user is asked. */
  const [consent, setConsent] = useState<{ section: Section; question: string; error?: string }>();
  const [consentPass, setConsentPass] = useState('');
  /** The section being read: the last one whose heading has scrolled to the top of the page. */
  const [current, setCurrent] = useState<string>(NAV[0][0]);
  const page = useRef<HTMLDivElement>(null);
  /** Whether this vault is one several computers write (its section is listed then). */
  const [shared, setShared] = useState(false);
  const nav = NAV.filter(([id]) => id !== 'devices' || shared);

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
      setStatus((st) => ({ ...st, [section]: t('saved') }));
      setConsent(undefined);
      setConsentPass('');
    } catch (err) {
      setStatus((st) => ({ ...st, [section]: undefined }));
      // Main wants the passphrase: ask for it here; the values stay as the user set them.
      if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') setConsent({ section, question: messageOf(err) });
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
        label={t('consent.label')}
        question={consent.question}
        action={t('consent.save')}
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

  /** Goes to a section from the list: its heading takes focus, so it is read out and scrolled into view. */
  const goTo = (id: string) => {
    const heading = document.getElementById(id);
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
    heading.scrollIntoView({ block: 'start' });
    setCurrent(id);
  };
  const onScroll = () => {
    const top = page.current?.getBoundingClientRect().top ?? 0;
    const reached = nav.filter(([id]) => (document.getElementById(id)?.getBoundingClientRect().top ?? Infinity) <= top + 80);
    setCurrent(reached.at(-1)?.[0] ?? nav[0]![0]);
  };

  return (
    // A list of the sections on the left, the sections to its right in a readable column.
    <div className="settings" ref={page} onScroll={onScroll}>
      <nav className="settings-nav" aria-label={t('nav.label')}>
        <ul>
          {nav.map(([id, key]) => (
            <li key={id}>
              <button type="button" aria-current={current === id ? 'true' : undefined} onClick={() => goTo(id)}>
                {t(key)}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div className="settings-content">
        <ConnectionSettings keyStatus={s} onKeyStatus={(k) => setS((now) => (now ? { ...now, ...k } : now))} />
        <section aria-labelledby="behaviour">
          <h2 id="behaviour">{t('claude.title')}</h2>
          <form onSubmit={save('claude')} aria-labelledby="behaviour">
            <ModelPicker value={s.model} onChange={(m) => update('model', m)} keyStatus={`${s.apiKeySource}:${s.hasApiKey}`} />
            <label>
              {t('claude.maxTokens')}
              <input type="number" min={256} max={128000} value={s.maxTokens} onChange={(e) => update('maxTokens', Number(e.target.value))} />
            </label>
            <label>
              {t('claude.maxToolRounds')}
              <input type="number" min={1} max={500} value={s.maxToolRounds} onChange={(e) => update('maxToolRounds', Number(e.target.value))} />
            </label>
            <label>
              {t('claude.memoryGuidance')}
              <textarea rows={5} dir="auto" value={s.memoryGuidance} onChange={(e) => update('memoryGuidance', e.target.value)} />
            </label>
            <label className="check">
              <input type="checkbox" checked={s.approvalMode} onChange={(e) => update('approvalMode', e.target.checked)} />
              {t('claude.approvalMode')}
            </label>
            {/* Three choices, each said in full: a group of radio buttons (arrow keys move between them), not a drop-down. */}
            <RadioChoices className="choices" legend={t('claude.guardMode')} name="guard-mode" labels={{ block: t(GUARD.block), redact: t(GUARD.redact), allow: t(GUARD.allow) }} value={s.guardMode} onChange={(v) => update('guardMode', v)} />
            <label className="check">
              <input type="checkbox" checked={s.thinking} onChange={(e) => update('thinking', e.target.checked)} />
              {t('claude.thinking')}
            </label>
            <label className="check">
              <input type="checkbox" checked={s.autoTitle} onChange={(e) => update('autoTitle', e.target.checked)} />
              {t('claude.autoTitle')}
            </label>
            <label className="check">
              <input type="checkbox" checked={s.compaction} onChange={(e) => update('compaction', e.target.checked)} />
              {t('claude.compaction')}
            </label>
            <label>
              {t('claude.historyDepth')}
              <input type="number" min={1} max={200} value={s.historyDepth} onChange={(e) => update('historyDepth', Number(e.target.value))} />
            </label>
            {saveRow('claude', t('claude.save'))}
          </form>
          {askPassphrase('claude')}
        </section>
        <SecuritySettings>
          <form onSubmit={save('security')} aria-label={t('security.locking')}>
            <label>
              {t('security.autoLock')}
              <input type="number" min={0} max={1440} value={s.autoLockMinutes} onChange={(e) => update('autoLockMinutes', Number(e.target.value))} />
            </label>
            {saveRow('security', t('security.save'))}
          </form>
          {askPassphrase('security')}
        </SecuritySettings>
        <section aria-labelledby="vault-folder">
          <h2 id="vault-folder">{t('vaultFolder.title')}</h2>
          <p className="hint">{t('vaultFolder.about')}</p>
          <VaultFolderChoice onMoved={onFolderMoved} />
        </section>
        <OtherAppsSettings>
          <form onSubmit={save('apps')} aria-label={t('otherApps.formLabel')}>
            <RadioChoices legend={t('otherApps.legend')} name="mcp-access" labels={{ off: t(ACCESS.off), 'read-only': t(ACCESS['read-only']), 'read-write': t(ACCESS['read-write']) }} value={s.mcpAccess} onChange={(v) => update('mcpAccess', v)} />
            <label className="check">
              <input type="checkbox" checked={s.mcpNewClientsReadOnly} onChange={(e) => update('mcpNewClientsReadOnly', e.target.checked)} />
              {t('otherApps.newClientsReadOnly')}
            </label>
            <p className="hint">{t('otherApps.allowingHint')}</p>
            {saveRow('apps', t('otherApps.save'))}
          </form>
          {askPassphrase('apps')}
        </OtherAppsSettings>
        <DevicesSettings onShared={setShared} restored={restoredNames} />
        <LanguageSettings />
      </div>
    </div>
  );
}
