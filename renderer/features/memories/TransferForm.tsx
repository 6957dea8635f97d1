import { useState } from 'react';
import { call, messageOf } from '../../lib/api';
import { useProjects } from './projects';
import { imeOwnsKey } from '../../lib/keys';

/**
 * Move (with its history) or copy one memory file into another project's
 * memory, at the same path or another one. Main checks the path rules, the
 * other project's trash and the vault's size limit, and says why it refuses.
 */
export function TransferForm({ path, project, onDone, onCancel, onError }: { path: string; project: string; onDone: (mode: 'move' | 'copy', toName: string) => void; onCancel: () => void; onError: (message: string) => void }) {
  const [projects] = useProjects(path);
  const others = projects?.filter((p) => p.id !== project) ?? [];
  const [to, setTo] = useState<string>();
  const [toPath, setToPath] = useState(path);
  const [mode, setMode] = useState<'move' | 'copy'>('copy');
  const target = to ?? others[0]?.id;
  if (projects && others.length === 0)
    return (
      <div className="inline-form">
        <p>There is no other project to move or copy to. Make one with “New project” in the chat sidebar.</p>
        <button onClick={onCancel} autoFocus>
          Close
        </button>
      </div>
    );
  return (
    <form
      className="inline-form"
      aria-label="Move or copy to another project"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !imeOwnsKey(e)) onCancel();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        if (!target) return;
        const name = others.find((p) => p.id === target)?.name ?? 'the other project';
        void call('memoryTransfer', { fromProject: project, path, toProject: target, toPath: toPath.trim(), mode }).then(
          () => onDone(mode, name),
          (err: unknown) => onError(messageOf(err)),
        );
      }}
    >
      <label>
        To project
        <select value={target ?? ''} onChange={(e) => setTo(e.target.value)} autoFocus>
          {others.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Path there
        <input value={toPath} onChange={(e) => setToPath(e.target.value)} />
      </label>
      <fieldset className="row">
        <legend>Keep this file here?</legend>
        <label>
          <input type="radio" name="transfer-mode" checked={mode === 'copy'} onChange={() => setMode('copy')} /> Copy (keep it here too)
        </label>
        <label>
          <input type="radio" name="transfer-mode" checked={mode === 'move'} onChange={() => setMode('move')} /> Move (with its history)
        </label>
      </fieldset>
      <button type="submit" disabled={!target}>
        {mode === 'move' ? 'Move' : 'Copy'}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
