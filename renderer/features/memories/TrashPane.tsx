import { useCallback, useEffect, useState } from 'react';
import type { TrashEntry } from '../../../electron/shared/ipc';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { describeWriter, useConversationTitles } from './provenance';
import { useReturnFocus } from './useReturnFocus';
import './PaneTitle.css';

const when = (ms: number) => new Date(ms).toLocaleString();

/**
 * Deleted memories whose versions the vault still keeps: each with when and by
 * whom it was deleted and its versions; any version can be read and restored
 * (as a new version recorded as a restore). Emptying the trash asks first and
 * then removes those versions for good.
 */
export function TrashPane({ project, onRestored }: { project: string; onRestored: (path: string) => void }) {
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
    <section className="trash-pane" aria-label="Trash">
      <div className="toolbar">
        <h2 className="file-title pane-title">Trash</h2>
        <button
          className="danger"
          disabled={count === 0}
          onClick={() => {
            back.remember();
            setAsking(true);
          }}
        >
          Empty trash
        </button>
      </div>
      {asking && (
        <div role="alertdialog" aria-labelledby="empty-trash-q" className="confirm" onKeyDown={(e) => e.key === 'Escape' && closeAsk()}>
          <p id="empty-trash-q">
            Permanently delete {count} {count === 1 ? 'memory and all its versions' : 'memories and all their versions'}? This cannot be undone.
          </p>
          <button className="danger" onClick={() => void empty()}>
            Delete permanently
          </button>
          <button onClick={closeAsk} autoFocus>
            Cancel
          </button>
        </div>
      )}
      <ErrorText message={error} />
      <div className="trash-body">
        {entries && count === 0 && <p className="empty">The trash is empty.</p>}
        <ul className="trash-list">
          {entries?.map((e) => (
            <li key={e.path}>
              <button aria-pressed={chosen === e.path} onClick={() => choose(e.path)}>
                <span className="path">{e.path}</span>
                <span className="meta">
                  {' '}
                  · deleted by {e.by ? describeWriter(e.by, titles).replace(/^You$/, 'you') : 'unknown'}, {e.deleted ? when(e.deleted) : 'time not recorded'} · {e.versions.length}{' '}
                  {e.versions.length === 1 ? 'version' : 'versions'}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {entry && (
          <div className="trash-versions">
            <h3>Versions of {entry.path}</h3>
            <ul>
              {[...entry.versions].reverse().map((v) => (
                <li key={v.version}>
                  <button aria-pressed={shown === v.version} onClick={() => void show(entry.path, v.version)}>
                    Version {v.version} · {describeWriter(v.by, titles)}
                    <span className="meta">
                      {' '}
                      · {when(v.modified)} · {v.size} B
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {version && (
              <div role="group" aria-label={`Text of version ${version.version}`}>
                <pre className="preview">{version.text}</pre>
              </div>
            )}
            {shown !== undefined && <button onClick={() => void restore(entry.path, shown)}>Restore this version</button>}
          </div>
        )}
      </div>
    </section>
  );
}
