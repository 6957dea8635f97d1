import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { NameDrafts } from '../../../electron/shared/drafts';
import type { DeviceEntry } from '../../../electron/shared/ipc-values';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf, on } from '../../lib/api';
import { discardDraft, saveDraft } from '../../lib/drafts';
import { formatDateTime } from '../../lib/format';

type Kind = 'rename' | 'forget';
/** What the status line says after a change: a name saved, or which computer was forgotten (its name isolated). */
type Status = { kind: 'renamed' } | { kind: 'forgotten'; name: string };

/**
 * Settings → "This vault on other computers": what a synced vault is, in two sentences, and the computers that write to
 * it (name, last change, this one marked), each renamed or forgotten in place. Shown only for a vault several computers
 * can write (format 2); `onShared` tells the page whether to list the section. Each computer's rename field stays open,
 * with what was typed in it, while the user goes to another row; only Cancel (or Escape) or saving it closes it. The
 * open fields are drafts (lib/drafts.ts): a lock keeps them, and `restored` brings them back after the unlock.
 */
export function DevicesSettings({ onShared, restored }: { onShared: (shared: boolean) => void; restored?: NameDrafts }) {
  const { t } = useTranslation('settings');
  const [devices, setDevices] = useState<DeviceEntry[]>();
  /** The open rename fields: per computer, the name typed so far. */
  const [typed, setTyped] = useState<Record<string, string>>({});
  /** The computer whose "Forget …?" question is open. */
  const [asking, setAsking] = useState<string>();
  /** An error of the row being changed (`id`), shown in that row; or of the list (no id). */
  const [error, setError] = useState<{ id?: string; message: string }>();
  const [status, setStatus] = useState<Status>();
  const ids = useId();
  /** Where focus goes once the list has been drawn again (a button of the row just changed). */
  const focusNext = useRef<string | undefined>(undefined);
  const box = useRef<HTMLElement & HTMLDivElement>(null);

  // The fields a lock kept open, with their text, once the computers are listed: a field opened since keeps what is
  // typed in it, and one for a computer no longer listed, or whose name is already what it holds (saved just before
  // the lock), is not opened again. Nothing left of them: main's copy is discarded.
  const restoredDone = useRef<NameDrafts>(undefined);
  useEffect(() => {
    if (!restored || !devices || restoredDone.current === restored) return;
    restoredDone.current = restored;
    const open = restored.filter((r) => devices.some((d) => d.id === r.id && d.name !== r.name));
    if (open.length) setTyped((all) => ({ ...Object.fromEntries(open.map((r) => [r.id, r.name])), ...all }));
    else void discardDraft('names');
  }, [restored, devices]);
  // Each change goes to main as a draft, for the computers still listed and only once typed in; none discards it. A
  // field still showing the computer's own name holds nothing of the user's: kept through a lock, it would bring that
  // name back over a rename another computer made meanwhile, for Enter to undo.
  useEffect(() => {
    const open = Object.entries(typed).filter(([id, name]) => {
      if (!devices) return true;
      const d = devices.find((x) => x.id === id);
      return d !== undefined && d.name !== name;
    });
    saveDraft('names', open.length ? open.map(([id, name]) => ({ id, name })) : null);
  }, [typed, devices]);

  const refresh = useCallback(async () => {
    const r = await call('devicesList');
    onShared(r.shared);
    setDevices(r.shared ? r.devices : undefined);
  }, [onShared]);
  useEffect(() => {
    // Settings stay mounted while hidden: the list is asked for again each time the Settings panel is shown (what a
    // sync engine brought meanwhile is read then).
    const shown = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void refresh().catch((e: unknown) => setError({ message: messageOf(e) }));
    });
    const watched = box.current?.closest('[role="tabpanel"]') ?? box.current;
    if (watched) shown.observe(watched);
    // And when what another computer wrote arrives while the window is open.
    const off = on('vaultSynced', () => void refresh().catch((e: unknown) => setError({ message: messageOf(e) })));
    return () => {
      shown.disconnect();
      off();
    };
  }, [refresh]);
  useEffect(() => {
    if (!focusNext.current) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = undefined;
  });
  // Nothing shown for a vault only this computer writes; the box stays, to know when Settings is shown.
  if (!devices) return <div ref={box} hidden />;

  const nameOf = (d: DeviceEntry) => d.name || t('devices.unnamed');
  const forgetTyped = (id: string) => setTyped(({ [id]: _gone, ...rest }) => rest);
  const act = async (d: DeviceEntry, run: () => Promise<unknown>, said: Status, then: 'rename' | 'status') => {
    setError(undefined);
    setStatus(undefined);
    try {
      await run();
    } catch (err) {
      setError({ id: d.id, message: messageOf(err) });
      return;
    }
    if (said.kind === 'renamed') forgetTyped(d.id);
    else setAsking(undefined);
    setStatus(said);
    focusNext.current = then === 'rename' ? `${ids}-rename-${d.id}` : `${ids}-status`;
    await refresh().catch((e: unknown) => setError({ message: messageOf(e) }));
  };
  /** Opens the rename field of one row (with its name) or its question, focus in it. */
  const start = (d: DeviceEntry, kind: Kind) => {
    if (kind === 'rename') setTyped((all) => ({ ...all, [d.id]: d.name }));
    else setAsking(d.id);
    setError(undefined);
    focusNext.current = `${ids}-${kind === 'rename' ? 'name-input' : 'forget-yes'}-${d.id}`;
  };
  /** Cancel or Escape: the field or question closes (what was typed in it goes), and focus returns to its button. */
  const cancel = (d: DeviceEntry, kind: Kind) => {
    if (kind === 'rename') forgetTyped(d.id);
    else setAsking(undefined);
    setError(undefined);
    focusNext.current = `${ids}-${kind}-${d.id}`;
  };
  const rowError = (d: DeviceEntry) => (error?.id === d.id ? error.message : undefined);

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
            {typed[d.id] !== undefined ? (
              <form
                className="row"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(d, () => call('devicesRename', { id: d.id, name: typed[d.id] ?? '' }), { kind: 'renamed' }, 'rename');
                }}
              >
                <label>
                  {t('devices.nameLabel')}
                  <input
                    id={`${ids}-name-input-${d.id}`}
                    dir="auto"
                    maxLength={200}
                    value={typed[d.id] ?? ''}
                    aria-invalid={rowError(d) ? true : undefined}
                    aria-describedby={rowError(d) ? `${ids}-error-${d.id}` : undefined}
                    onChange={(e) => setTyped((all) => ({ ...all, [d.id]: e.target.value }))}
                    onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), cancel(d, 'rename'))}
                  />
                </label>
                <button type="submit">{t('devices.saveName')}</button>
                <button type="button" onClick={() => cancel(d, 'rename')}>
                  {t('devices.cancel')}
                </button>
              </form>
            ) : asking === d.id ? (
              <div className="confirm" role="group" aria-labelledby={`${ids}-forget-q`} onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), cancel(d, 'forget'))}>
                <p id={`${ids}-forget-q`}>
                  <Trans t={t} i18nKey="devices.forgetQuestion" values={{ name: nameOf(d) }} components={[<bdi />]} />
                </p>
                <div className="row">
                  <button id={`${ids}-forget-yes-${d.id}`} type="button" className="danger" onClick={() => void act(d, () => call('devicesForget', { id: d.id }), { kind: 'forgotten', name: nameOf(d) }, 'status')}>
                    {t('devices.forgetConfirm')}
                  </button>
                  <button type="button" onClick={() => cancel(d, 'forget')}>
                    {t('devices.cancel')}
                  </button>
                </div>
              </div>
            ) : (
              <div className="row">
                <button id={`${ids}-rename-${d.id}`} type="button" aria-label={t('devices.renameLabel', { name: nameOf(d) })} onClick={() => start(d, 'rename')}>
                  {t('devices.rename')}
                </button>
                {!d.current && !d.forgotten && (
                  <button id={`${ids}-forget-${d.id}`} type="button" aria-label={t('devices.forgetLabel', { name: nameOf(d) })} onClick={() => start(d, 'forget')}>
                    {t('devices.forget')}
                  </button>
                )}
              </div>
            )}
            {rowError(d) && <ErrorText id={`${ids}-error-${d.id}`} message={rowError(d)} />}
          </li>
        ))}
      </ul>
      <p id={`${ids}-status`} role="status" className="saved" tabIndex={-1}>
        {status?.kind === 'renamed' && t('devices.renamed')}
        {status?.kind === 'forgotten' && <Trans t={t} i18nKey="devices.forgotten" values={{ name: status.name }} components={[<bdi />]} />}
      </p>
      {error && !error.id && <ErrorText message={error.message} />}
    </section>
  );
}
