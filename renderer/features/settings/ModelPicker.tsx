import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ModelList } from '../../../electron/shared/projects';
import { ModelListbox } from '../../components/ModelListbox';
import { call, messageOf } from '../../lib/api';
import { formatDateTime } from '../../lib/format';

/**
 * The model setting as a choice among the models the API offers, each with
 * its context window and price tier (kept in the vault; "Refresh list" asks
 * the API again). A refresh that fails keeps the
 * list shown and says so; a saved model the list no longer holds stays
 * selected, marked as not offered, so saving other settings never changes it.
 */
export function ModelPicker({ value, onChange, keyStatus }: { value: string; onChange: (model: string) => void; keyStatus: string }) {
  const { t } = useTranslation('settings');
  const [list, setList] = useState<ModelList>();
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string>();
  /** Why the last attempt failed; `asked`: the user pressed Refresh (an alert), not the quiet load when Settings opens (a note). */
  const [error, setError] = useState<{ message: string; asked: boolean }>();
  const noteId = useId();

  const load = useCallback(async (refresh: boolean) => {
    setBusy(true);
    setError(undefined);
    setStatus(refresh ? t('models.asking') : undefined);
    try {
      const l = await call('modelsList', refresh ? { refresh: true } : undefined);
      setList(l);
      if (refresh) setStatus(t('models.refreshed', { count: l.models.length }));
    } catch (err) {
      setStatus(undefined);
      setError({ message: messageOf(err), asked: refresh });
    } finally {
      setBusy(false);
    }
  }, [t]);
  const box = useRef<HTMLDivElement>(null);
  const haveList = list !== undefined && list.fetched > 0;
  // Without a list yet (no key when Settings was first drawn, or offline), try again when a key is set and each time Settings is shown.
  useEffect(() => {
    if (!haveList) void load(false);
  }, [load, haveList, keyStatus]);
  useEffect(() => {
    const el = box.current;
    if (haveList || !el) return;
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void load(false);
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [load, haveList]);

  const models = list?.models ?? [];
  // "Not offered" only once there is a list to say it against; before that the model is simply the one saved.
  const missing = haveList && !models.some((m) => m.id === value);
  const since = haveList ? formatDateTime(list.fetched) : undefined;

  return (
    <div className="model-picker" ref={box}>
      <div className="field">
        <span aria-hidden="true">{t('models.label')}</span>
        {/* Refresh sits beside the box it refreshes, not on a line of its own. */}
        <div className="model-row">
          <ModelListbox label={t('models.label')} value={value} models={models} listLoaded={haveList} onChange={(m) => m !== null && onChange(m)} describedBy={missing || error ? noteId : undefined} />
          <button type="button" onClick={() => void load(true)} disabled={busy}>
            {t('models.refresh')}
          </button>
        </div>
      </div>
      {status && (
        <p role="status" className="saved model-status">
          {status}
        </p>
      )}
      <div id={noteId}>
        {missing && (
          <p className="note">
            <Trans t={t} i18nKey="models.notOffered" values={{ model: value }} components={[<strong />, <span translate="no" />]} />
          </p>
        )}
        {error?.asked && (
          <p role="alert" className="error">
            {since ? t('models.refreshFailed', { error: error.message, when: since }) : error.message}
          </p>
        )}
        {error && !error.asked && <p className="note">{t('models.noList', { error: error.message })}</p>}
      </div>
    </div>
  );
}
