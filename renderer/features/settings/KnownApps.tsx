import { useCallback, useEffect, useId, useState } from 'react';
import type { ClientAccess, KnownClient } from '../../../electron/shared/channel';
import { ErrorText } from '../../components/ErrorText';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { PassphraseConfirm } from './PassphraseConfirm';

const CHOICES: Array<[ClientAccess, string]> = [
  ['read-write', 'View and change memories'],
  ['read-only', 'View memories only'],
];

/**
 * The apps that have connected, by the name each gave, with what each may do
 * beside the access level above. Setting one to view only applies at once;
 * letting it change memory again is main's to allow, so the passphrase is
 * asked for in place when main wants it. `seen` changes each time the section
 * comes into view (the list is asked for again then, and as calls come in).
 */
export function KnownApps({ seen }: { seen: number }) {
  const [clients, setClients] = useState<KnownClient[]>([]);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [consent, setConsent] = useState<{ client: string; question: string; error?: string }>();
  const [pass, setPass] = useState('');
  const ids = useId();

  const refresh = useCallback(() => void call('channelClients').then(setClients, (e: unknown) => setError(messageOf(e))), []);
  useEffect(refresh, [refresh, seen]);
  // A new app shows up with its first calls.
  useEffect(() => on('channelCalls', refresh), [refresh]);

  const set = async (client: string, access: ClientAccess, passphrase?: string) => {
    setError(undefined);
    setSaved(undefined);
    try {
      setClients(await call('channelSetClientAccess', { client, access, ...(passphrase !== undefined ? { passphrase } : {}) }));
      setSaved(`${client}: ${access === 'read-only' ? 'view only' : 'view and change'}.`);
      setConsent(undefined);
      setPass('');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NEEDS_CONSENT') setConsent({ client, question: err.message });
      else if (passphrase !== undefined) setConsent((c) => c && { ...c, error: messageOf(err) });
      else setError(messageOf(err));
    }
  };

  return (
    <>
      <h3>Apps that have connected</h3>
      <p className="hint">
        Each app is known by the name it gives when it connects. You can let an app only view your memories. An app’s name is what the app says it is, and another program could give the same name: this keeps an app you use from
        changing memory by mistake, it does not keep a hostile program out. The access level above does.
      </p>
      {clients.length === 0 ? (
        <p className="empty">No app has connected yet.</p>
      ) : (
        <ul className="known-apps">
          {clients.map((c) => (
            <li key={c.name}>
              <label htmlFor={`${ids}-${c.name}`}>
                What <bdi>{c.name}</bdi> may do
              </label>
              <select id={`${ids}-${c.name}`} value={consent?.client === c.name ? 'read-write' : c.access} onChange={(e) => void set(c.name, e.target.value as ClientAccess)}>
                {CHOICES.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </li>
          ))}
        </ul>
      )}
      {consent && (
        <PassphraseConfirm
          label="Passphrase (to allow this change)"
          question={consent.question}
          action="Allow with passphrase"
          value={pass}
          error={consent.error}
          onChange={setPass}
          onCancel={() => (setConsent(undefined), setPass(''))}
          onConfirm={() => void set(consent.client, 'read-write', pass)}
        />
      )}
      {saved && (
        <p role="status" className="saved">
          {saved}
        </p>
      )}
      <ErrorText message={error} />
    </>
  );
}
