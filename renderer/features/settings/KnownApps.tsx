import { useCallback, useEffect, useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ClientAccess, KnownClient } from '../../../electron/shared/channel';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { PassphraseConfirm } from './PassphraseConfirm';

const CHOICES = {
  'read-write': 'otherApps.access.readWrite',
  'read-only': 'otherApps.access.readOnly',
} as const satisfies Record<ClientAccess, string>;
/** What the status line says once an app's access is set. */
const SAVED = {
  'read-write': 'otherApps.known.savedReadWrite',
  'read-only': 'otherApps.known.savedReadOnly',
} as const satisfies Record<ClientAccess, string>;

/**
 * The apps that have connected, by the name each gave, with what each may do
 * beside the access level above. Setting one to view only applies at once;
 * letting it change memory again is main's to allow, so the passphrase is
 * asked for in place when main wants it. `seen` changes each time the section
 * comes into view (the list is asked for again then, and as calls come in).
 */
export function KnownApps({ seen }: { seen: number }) {
  const { t } = useTranslation('settings');
  const [clients, setClients] = useState<KnownClient[]>([]);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<{ client: string; access?: ClientAccess }>();
  /** The passphrase main asked for: to let `client` change memory, or to forget it (when that lets it change memory). */
  const [consent, setConsent] = useState<{ client: string; forget?: boolean; question: string; error?: string }>();
  const [pass, setPass] = useState('');
  const ids = useId();

  const refresh = useCallback(() => void call('channelClients').then(setClients, (e: unknown) => setError(messageOf(e))), []);
  useEffect(refresh, [refresh, seen]);
  // A new app shows up with its first calls.
  useEffect(() => on('channelCalls', refresh), [refresh]);

  /** Sets what `client` may do, or forgets it (`access` undefined); asks for the passphrase in place when main wants it. */
  const apply = async (client: string, access: ClientAccess | undefined, passphrase?: string) => {
    setError(undefined);
    setSaved(undefined);
    const withPass = passphrase !== undefined ? { passphrase } : {};
    try {
      setClients(access ? await call('channelSetClientAccess', { client, access, ...withPass }) : await call('channelForgetClient', { client, ...withPass }));
      setSaved(access ? { client, access } : { client });
      setConsent(undefined);
      setPass('');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') setConsent({ client, ...(access ? {} : { forget: true }), question: messageOf(err) });
      else if (passphrase !== undefined) setConsent((c) => c && { ...c, error: messageOf(err) });
      else setError(messageOf(err));
    }
  };

  return (
    <>
      <h3>{t('otherApps.known.title')}</h3>
      <p className="hint">{t('otherApps.known.hint')}</p>
      {clients.length > 0 && <p className="hint">{t('otherApps.known.forgetHint')}</p>}
      {clients.length === 0 ? (
        <p className="empty">{t('otherApps.known.empty')}</p>
      ) : (
        <ul className="known-apps">
          {clients.map((c) => (
            <li key={c.name}>
              <label htmlFor={`${ids}-${c.name}`}>
                <Trans t={t} i18nKey="otherApps.known.mayDo" values={{ name: c.name }} components={[<bdi />]} />
              </label>
              <select id={`${ids}-${c.name}`} value={consent?.client === c.name && !consent.forget ? 'read-write' : c.access} onChange={(e) => void apply(c.name, e.target.value as ClientAccess)}>
                {(Object.keys(CHOICES) as ClientAccess[]).map((value) => (
                  <option key={value} value={value}>
                    {t(CHOICES[value])}
                  </option>
                ))}
              </select>
              <button aria-label={t('otherApps.known.forgetLabel', { name: c.name })} onClick={() => void apply(c.name, undefined)}>
                {t('otherApps.known.forget')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {consent && (
        <PassphraseConfirm
          label={t('consent.label')}
          question={consent.question}
          action={t(consent.forget ? 'otherApps.known.forgetAllow' : 'otherApps.known.allow')}
          value={pass}
          error={consent.error}
          onChange={setPass}
          onCancel={() => (setConsent(undefined), setPass(''))}
          onConfirm={() => void apply(consent.client, consent.forget ? undefined : 'read-write', pass)}
        />
      )}
      {saved && (
        <p role="status" className="saved">
          <Trans t={t} i18nKey={saved.access ? SAVED[saved.access] : 'otherApps.known.forgotten'} values={{ name: saved.client }} components={[<bdi />]} />
        </p>
      )}
      <ErrorText message={error} />
    </>
  );
}
