import { useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { RenameForm } from './RenameForm';

/** A selected folder: rename (move) it or delete it with everything inside, after confirmation. */
export function FolderPane({ path, count, onRenamed, onDeleted }: { path: string; count: number; onRenamed: (to: string) => void; onDeleted: () => void }) {
  const [mode, setMode] = useState<'idle' | 'rename' | 'delete'>('idle');
  const [error, setError] = useState<string>();
  return (
    <div className="editor-pane">
      <div className="toolbar" role="toolbar" aria-label="Folder actions">
        <h2 className="file-title">{path}/</h2>
        <button onClick={() => setMode('rename')}>Rename</button>
        <button onClick={() => setMode('delete')}>Delete</button>
      </div>
      <p className="empty">
        {count} {count === 1 ? 'item' : 'items'} inside.
      </p>
      {mode === 'rename' && <RenameForm path={path} onRenamed={onRenamed} onCancel={() => setMode('idle')} onError={setError} />}
      {mode === 'delete' && (
        <div role="alertdialog" aria-labelledby="delete-folder-q" className="confirm">
          <p id="delete-folder-q">
            Delete the folder {path} and the {count} {count === 1 ? 'item' : 'items'} in it? Their versions stay in history until collected.
          </p>
          <button onClick={() => void call('memoryDelete', { path }).then(onDeleted, (err: unknown) => setError(messageOf(err)))}>Delete</button>
          <button onClick={() => setMode('idle')} autoFocus>
            Cancel
          </button>
        </div>
      )}
      <ErrorText message={error} />
    </div>
  );
}
