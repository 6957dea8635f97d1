import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DeviceEntry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { formatDateTime } from '../../lib/format';

/** What the user is doing to one computer: renaming it (with the name typed so far) or confirming it is to be forgotten. */
type Editing = { id: string; kind: 'rename'; name: string } | { id: string; kind: 'forget' };

/**
 * Settings → "This vault on other computers": what a synced vault is, in two sentences, and the computers that write to
 * it (name, last change, this one marked), each renamed or forgotten in place. Shown only for a vault several computers
 * can write (format 2); `onShared` tells the page whether to list the section.
 */
export function DevicesSettings({ onShared }: { onShared: (shared: boolean) => void }) {
  const { t } = useTranslation('settings');
  const [devices, setDevices] = useState<DeviceEntry[]>();
  const [editing, setEditing] = useState<Editing>();
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const ids = useId();
  /** Where focus goes once the list has been drawn again (a button of the row just changed). */
  const focusNext = useRef<string | undefined>(undefined);

  const refresh = useCallback(async () => {
    const r = await call('devicesList');
    onShared(r.shared);
    setDevices(r.shared ? r.devices : undefined);
  }, [onShared]);
  const box = useRef<HTMLElement & HTMLDivElement>(null);
  useEffect(() => {
    // Settings stay mounted while hidden: the list is asked for again each time the Settings panel is shown (what a
    // sync engine brought meanwhile is read then).
    const shown = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void refresh().catch((e: unknown) => setError(messageOf(e)));
    });
    const watched = box.current?.closest('[role="tabpanel"]') ?? box.current;
    if (watched) shown.observe(watched);
    return () => shown.disconnect();
  }, [refresh]);
  useEffect(() => {
    if (!focusNext.current) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = undefined;
  });
  // Nothing shown for a vault only this computer writes; the box stays, to know when Settings is shown.
  if (!devices) return <div ref={box} hidden />;

  const nameOf = (d: DeviceEntry) => d.name || t('devices.unnamed');
  const done = async (d: DeviceEntry, said: string, then: 'rename' | 'status') => {
    setEditing(undefined);
    setStatus(said);
    focusNext.current = then === 'rename' ? `${ids}-rename-${d.id}` : `${ids}-status`;
    await refresh();
  };
  const act = async (d: DeviceEntry, run: () => Promise<unknown>, said: (d: DeviceEntry) => string, then: 'rename' | 'status') => {
    setError(undefined);
    setStatus(undefined);
    try {
      await run();
      await done(d, said(d), then);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  /** Opens the rename field or the question of one row, focus in it. */
  const start = (e: Editing, focus: string) => {
    setEditing(e);
    setError(undefined);
    focusNext.current = `${ids}-${focus}`;
  };
  const cancel = (d: DeviceEntry, kind: Editing['kind']) => {
    setEditing(undefined);
    focusNext.current = `${ids}-${kind}-${d.id}`;
  };

  return (
    <section aria-labelledby="devices" ref={box}>
      <h2 id="devices">{t('devices.title')}</h2>
      <p className="hint">{t('devices.about')}</p>
      <ul className="devices">
        {devices.map((d) => (
          <li key={d.id} aria-labelledby={`${ids}-name-${d.id}`}>
            <div className="device-head">
              <strong id={`${ids}-name-${d.id}`} dir="auto">
                {nameOf(d)}
              </strong>
              {d.current && <span className="badge">{t('devices.thisComputer')}</span>}
              {d.forgotten && <span className="badge">{t('devices.forgottenBadge')}</span>}
            </div>
            <p className="hint">
              {t('devices.lastChange', { when: formatDateTime(d.lastWrite) })}
              {d.behind && !d.forgotten && <> {t('devices.behind')}</>}
            </p>
            {editing?.id === d.id && editing.kind === 'rename' ? (
              <form
                className="row"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(d, () => call('devicesRename', { id: d.id, name: editing.name }), () => t('devices.renamed'), 'rename');
                }}
              >
                <label>
                  {t('devices.nameLabel')}
                  <input
                    id={`${ids}-name-input`}
                    dir="auto"
                    maxLength={200}
                    value={editing.name}
                    onChange={(e) => setEditing({ ...editing, name: e.target.value })}
                    onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), cancel(d, 'rename'))}
                  />
                </label>
                <button type="submit">{t('devices.saveName')}</button>
                <button type="button" onClick={() => cancel(d, 'rename')}>
                  {t('devices.cancel')}
                </button>
              </form>
            ) : editing?.id === d.id && editing.kind === 'forget' ? (
              <div className="confirm" role="group" aria-labelledby={`${ids}-forget-q`}>
                <p id={`${ids}-forget-q`}>
                  <Trans t={t} i18nKey="devices.forgetQuestion" values={{ name: nameOf(d) }} components={[<bdi />]} />
                </p>
                <div className="row">
                  <button id={`${ids}-forget-yes`} type="button" className="danger" onClick={() => void act(d, () => call('devicesForget', { id: d.id }), (x) => t('devices.forgotten', { name: nameOf(x) }), 'status')}>
                    {t('devices.forgetConfirm')}
                  </button>
                  <button type="button" onClick={() => cancel(d, 'forget')}>
                    {t('devices.cancel')}
                  </button>
                </div>
              </div>
            ) : (
              <div className="row">
                <button id={`${ids}-rename-${d.id}`} type="button" aria-label={t('devices.renameLabel', { name: nameOf(d) })} onClick={() => start({ id: d.id, kind: 'rename', name: d.name }, 'name-input')}>
                  {t('devices.rename')}
                </button>
                {!d.current && !d.forgotten && (
                  <button id={`${ids}-forget-${d.id}`} type="button" aria-label={t('devices.forgetLabel', { name: nameOf(d) })} onClick={() => start({ id: d.id, kind: 'forget' }, 'forget-yes')}>
                    {t('devices.forget')}
                  </button>
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
      <p id={`${ids}-status`} role="status" className="saved" tabIndex={-1}>
        {status}
      </p>
      <ErrorText message={error} />
    </section>
  );
}
