import { useEffect, useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { RenameForm } from './RenameForm';

/** A selected folder: rename (move) it or delete it with everything inside, after confirmation. */
export function FolderPane({
  path,
  count,
  request,
  onRenamed,
  onDeleted,
}: {
  path: string;
  count: number;
  /** Rename or delete asked for from the tree (F2, Delete); `n` changes with each ask. */
  request?: { mode: 'rename' | 'delete'; n: number } | undefined;
  onRenamed: (to: string) => void;
  onDeleted: () => void;
}) {
  const [mode, setMode] = useState<'idle' | 'rename' | 'delete'>(request?.mode ?? 'idle');
  useEffect(() => {
    if (request) setMode(request.mode);
  }, [request]);
  const [error, setError] = useState<string>();
  return (
    <div className="editor-pane">
      <div className="toolbar" role="toolbar" aria-label="Folder actions">
        <h2 className="file-title" title={`${path}/`}>
          {path}/
        </h2>
        <button onClick={() => setMode('rename')}>Rename</button>
        <button className="danger apart" onClick={() => setMode('delete')}>
          Delete
        </button>
      </div>
      <p className="empty">
        {count} {count === 1 ? 'item' : 'items'} inside.
      </p>
      {mode === 'rename' && <RenameForm path={path} onRenamed={onRenamed} onCancel={() => setMode('idle')} onError={setError} />}
      {mode === 'delete' && (
        <div role="alertdialog" aria-labelledby="delete-folder-q" className="confirm">
          <p id="delete-folder-q">
            Delete the folder {path} and the {count} {count === 1 ? 'item' : 'items'} in it? Its memories move to the trash (under Memories), where they can be restored until the trash is emptied.
          </p>
          <button className="danger" onClick={() => void call('memoryDelete', { path }).then(onDeleted, (err: unknown) => setError(messageOf(err)))}>Delete</button>
          <button onClick={() => setMode('idle')} autoFocus>
            Cancel
          </button>
        </div>
      )}
      <ErrorText message={error} />
    </div>
  );
}
