import { useEffect, useId, useState } from 'react';
import type { VersionEntry } from '../../../electron/shared/ipc';
import { Diff } from '../../components/Diff';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { describeWriter, useConversationTitles } from './provenance';
import { Splitter, usePaneSize } from './Splitter';
import './PaneTitle.css';

/**
 * Every version of one memory, newest (the current one) first, each saying who
 * wrote it and when; an earlier one shows its diff to the current text and can
 * be restored.
 */
export function History({ path, project, current, onRestored }: { path: string; project: string; current: string; onRestored: () => void }) {
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
      <Splitter label="Resize history" controls={paneId} value={size} min={220} max={720} onChange={setSize} edge="start" />
      <aside className="history" id={paneId} aria-label="Version history" style={{ '--pane-w': `${size}px` } as React.CSSProperties}>
        <h2 className="file-title pane-title">History</h2>
        {versions.length === 0 && <p className="empty">No versions yet.</p>}
        <ul>
          {versions.map((v) => (
            <li key={v.version}>
              <button aria-pressed={chosen?.version === v.version} onClick={() => void show(v.version)}>
                Version {v.version}
                {v.current ? ' (current)' : ''} · <span className={`writer ${v.by?.kind ?? 'unknown'}`}>{describeWriter(v.by, titles)}</span>
                <span className="meta">
                  {' '}
                  · {new Date(v.modified).toLocaleString()} · {v.size} B
                </span>
              </button>
            </li>
          ))}
        </ul>
        {chosen && isCurrent && <p className="empty">This is the current text.</p>}
        {chosen && !isCurrent && (
          <>
            <p>Changes from version {chosen.version} to the current text:</p>
            <Diff before={chosen.text} after={current} label={`Diff from version ${chosen.version}`} />
            <button onClick={() => void restore()}>Restore</button>
          </>
        )}
        <ErrorText message={error} />
      </aside>
    </>
  );
}
