import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { VersionEntry } from '../../../electron/shared/ipc-values';
import { Diff } from '../../components/Diff';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { formatBytes, formatDateTime } from '../../lib/format';
import { useConversationTitles, Writer } from './provenance';
import { Splitter, usePaneSize } from './Splitter';
import './PaneTitle.css';

/**
 * Every version of one memory, newest (the current one) first, each saying who
 * wrote it and when; an earlier one shows its diff to the current text and can
 * be restored.
 */
export function History({ path, project, current, onRestored }: { path: string; project: string; current: string; onRestored: () => void }) {
  const { t } = useTranslation('memories');
  const [versions, setVersions] = useState<VersionEntry[]>([]);
  const [chosen, setChosen] = useState<{ version: number; text: string }>();
  const [error, setError] = useState<string>();
  const titles = useConversationTitles();
  const [size, setSize] = usePaneSize('history', 360, 220, 720);
  const paneId = useId();

  useEffect(() => {
    call('memoryVersions', { path, project }).then((v) => setVersions([...v].reverse()), (e: unknown) => setError(messageOf(e)));
  }, [path, project, current]);

  const show = async (version: number) => {
    try {
      setChosen({ version, text: (await call('memoryReadVersion', { path, version, project })).text });
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const restore = async () => {
    if (!chosen) return;
    try {
      await call('memoryRestore', { path, version: chosen.version, project });
      setChosen(undefined);
      onRestored();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const isCurrent = versions.find((v) => v.version === chosen?.version)?.current;

  return (
    <>
      <Splitter label={t('history.resize')} controls={paneId} value={size} min={220} max={720} onChange={setSize} edge="start" />
      <aside className="history" id={paneId} aria-label={t('history.label')} style={{ '--pane-w': `${size}px` } as React.CSSProperties}>
        <h2 className="file-title pane-title">{t('history.title')}</h2>
        {versions.length === 0 && <p className="empty">{t('history.none')}</p>}
        <ul>
          {versions.map((v) => (
            <li key={v.version}>
              <button aria-pressed={chosen?.version === v.version} onClick={() => void show(v.version)}>
                {v.current ? t('history.versionCurrent', { version: v.version }) : t('history.version', { version: v.version })} ·{' '}
                <span className={`writer ${v.by?.kind ?? 'unknown'}`}>
                  <Writer by={v.by} titles={titles} />
                </span>
                <span className="meta">
                  {' '}
                  · {t('history.meta', { date: formatDateTime(v.modified), size: formatBytes(v.size) })}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {chosen && isCurrent && <p className="empty">{t('history.isCurrent')}</p>}
        {chosen && !isCurrent && (
          <>
            <p>{t('history.changesFrom', { version: chosen.version })}</p>
            <Diff before={chosen.text} after={current} label={t('history.diffLabel', { version: chosen.version })} />
            <button onClick={() => void restore()}>{t('actions.restore')}</button>
          </>
        )}
        <ErrorText message={error} />
      </aside>
    </>
  );
}
