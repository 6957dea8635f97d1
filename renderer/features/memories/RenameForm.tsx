import { useState } from 'react';
import { call, messageOf } from '../../lib/api';
import { imeOwnsKey } from '../../lib/keys';

/** Rename or move a memory or folder: one path field, checked by main against the memory path rules. */
export function RenameForm({ path, project, onRenamed, onCancel, onError }: { path: string; project: string; onRenamed: (to: string) => void; onCancel: () => void; onError: (message: string) => void }) {
  const [newPath, setNewPath] = useState(path);
  return (
    <form
      className="inline-form"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !imeOwnsKey(e)) onCancel();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        const to = newPath.trim();
        void call('memoryRename', { from: path, to, project }).then(
          () => onRenamed(to),
          (err: unknown) => onError(messageOf(err)),
        );
      }}
    >
      <label>
        New path
        <input value={newPath} onChange={(e) => setNewPath(e.target.value)} autoFocus />
      </label>
      <button type="submit">Rename</button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
