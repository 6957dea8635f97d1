import { useCallback, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { TrashEntry } from '../../../electron/shared/ipc-values';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { formatBytes, formatDateTime } from '../../lib/format';
import { PathText } from './PathText';
import { useConversationTitles, Writer } from './provenance';
import { useReturnFocus } from './useReturnFocus';
import './PaneTitle.css';

/** Who deleted a memory and when, as its trash entry says it. */
function DeletedBy({ entry, titles }: { entry: TrashEntry; titles: Map<string, string> }) {
  const { t } = useTranslation('memories');
  const when = entry.deleted ? formatDateTime(entry.deleted) : t('trash.timeUnknown');
  if (!entry.by) return <>{t('trash.deletedByUnknown', { when })}</>;
  if (entry.by.kind === 'user') return <>{t('trash.deletedByYou', { when })}</>;
  return <Trans t={t} i18nKey="trash.deletedBy" values={{ when }} components={[<Writer by={entry.by} titles={titles} />]} />;
}

/**
 * Deleted memories whose versions the vault still keeps: each with when and by
 * whom it was deleted and its versions; any version can be read and restored
 * (as a new version recorded as a restore). Emptying the trash asks first and
 * then removes those versions for good.
 */
export function TrashPane({ project, onRestored }: { project: string; onRestored: (path: string) => void }) {
  const { t } = useTranslation('memories');
  const [entries, setEntries] = useState<TrashEntry[]>();
  const [chosen, setChosen] = useState<string>();
  const [version, setVersion] = useState<{ version: number; text: string }>();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string>();
  const titles = useConversationTitles();
  const back = useReturnFocus();
  const closeAsk = () => {
    setAsking(false);
    back.restore();
  };

  const refresh = useCallback(() => {
    call('memoryTrash', { project }).then(setEntries, (e: unknown) => setError(messageOf(e)));
  }, [project]);
  useEffect(refresh, [refresh]);

  const entry = entries?.find((e) => e.path === chosen);
  const choose = (path: string) => {
    setChosen(path);
    setVersion(undefined);
    setError(undefined);
  };
  const show = async (path: string, v: number) => {
    try {
      setVersion({ version: v, text: (await call('memoryReadVersion', { path, version: v, project })).text });
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const restore = async (path: string, v: number) => {
    try {
      await call('memoryTrashRestore', { path, version: v, project });
      onRestored(path);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const empty = async () => {
    try {
      await call('memoryTrashEmpty', { project });
      setAsking(false);
      setChosen(undefined);
      setVersion(undefined);
      refresh();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const count = entries?.length ?? 0;
  const latest = entry?.versions.at(-1)?.version;
  const shown = version?.version ?? latest;

  return (
    <section className="trash-pane" data-pane="trash" aria-label={t('trash.label')}>
      <div className="toolbar">
        <h2 className="file-title pane-title">{t('trash.label')}</h2>
        <button
          className="danger"
          disabled={count === 0}
          onClick={() => {
            back.remember();
            setAsking(true);
          }}
        >
          {t('trash.empty')}
        </button>
      </div>
      {asking && (
        <div role="alertdialog" aria-labelledby="empty-trash-q" className="confirm" onKeyDown={(e) => e.key === 'Escape' && closeAsk()}>
          <p id="empty-trash-q">{t('trash.emptyQuestion', { count })}</p>
          <button className="danger" onClick={() => void empty()}>
            {t('trash.deletePermanently')}
          </button>
          <button onClick={closeAsk} autoFocus>
            {t('actions.cancel')}
          </button>
        </div>
      )}
      <ErrorText message={error} />
      <div className="trash-body">
        {entries && count === 0 && <p className="empty">{t('trash.isEmpty')}</p>}
        <ul className="trash-list">
          {entries?.map((e) => (
            <li key={e.path}>
              <button aria-pressed={chosen === e.path} onClick={() => choose(e.path)}>
                <PathText path={e.path} className="path" />
                <span className="meta">
                  {' '}
                  · <DeletedBy entry={e} titles={titles} /> · {t('trash.versions', { count: e.versions.length })}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {entry && (
          <div className="trash-versions">
            <h3>
              <Trans t={t} i18nKey="trash.versionsOf" components={[<PathText path={entry.path} />]} />
            </h3>
            <ul>
              {[...entry.versions].reverse().map((v) => (
                <li key={v.version}>
                  <button aria-pressed={shown === v.version} onClick={() => void show(entry.path, v.version)}>
                    {t('history.version', { version: v.version })} · <Writer by={v.by} titles={titles} />
                    <span className="meta">
                      {' '}
                      · {t('history.meta', { date: formatDateTime(v.modified), size: formatBytes(v.size) })}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {version && (
              <div role="group" aria-label={t('trash.textOf', { version: version.version })}>
                <pre className="preview" dir="auto">
                  {version.text}
                </pre>
              </div>
            )}
            {shown !== undefined && <button onClick={() => void restore(entry.path, shown)}>{t('trash.restore')}</button>}
          </div>
        )}
      </div>
    </section>
  );
}
