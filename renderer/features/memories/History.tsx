import { useEffect, useState } from 'react';
import { Diff } from '../../components/Diff';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';

interface Version {
  version: number;
  size: number;
  modified: number;
}

/** Earlier versions of one memory, each with a diff against the current text and a Restore button. */
export function History({ path, current, onRestored }: { path: string; current: string; onRestored: () => void }) {
  const [versions, setVersions] = useState<Version[]>([]);
  const [chosen, setChosen] = useState<{ version: number; text: string }>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    call('memoryHistory', { path }).then((v) => setVersions([...v].reverse()), (e: unknown) => setError(messageOf(e)));
  }, [path, current]);

  const show = async (version: number) => {
    try {
      setChosen({ version, text: (await call('memoryReadVersion', { path, version })).text });
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const restore = async () => {
    if (!chosen) return;
    try {
      await call('memoryRestore', { path, version: chosen.version });
      setChosen(undefined);
      onRestored();
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <aside className="history" aria-label="Version history">
      <h2>History</h2>
      {versions.length === 0 && <p className="empty">No earlier versions.</p>}
      <ul>
        {versions.map((v) => (
          <li key={v.version}>
            <button aria-pressed={chosen?.version === v.version} onClick={() => void show(v.version)}>
              Version {v.version} · {new Date(v.modified).toLocaleString()} · {v.size} B
            </button>
          </li>
        ))}
      </ul>
      {chosen && (
        <>
          <p>
            Changes from version {chosen.version} to the current text:
          </p>
          <Diff before={chosen.text} after={current} label={`Diff from version ${chosen.version}`} />
          <button onClick={() => void restore()}>Restore</button>
        </>
      )}
      <ErrorText message={error} />
    </aside>
  );
}
