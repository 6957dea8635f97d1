import { useState } from 'react';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { RenameForm } from './RenameForm';
import { useAskedMode } from './useReturnFocus';

/** A selected folder: rename (move) it or delete it with everything inside, after confirmation. */
export function FolderPane({
  path,
  project,
  count,
  request,
  onRenamed,
  onDeleted,
}: {
  path: string;
  project: string;
  count: number;
  /** Rename or delete asked for from the tree (F2, Delete); `n` changes with each ask. */
  request?: { mode: 'rename' | 'delete'; n: number } | undefined;
  onRenamed: (to: string) => void;
  onDeleted: () => void;
}) {
  const { mode, setMode, back, closeAsk } = useAskedMode('idle', request, path);
  const [error, setError] = useState<string>();
  return (
    <div className="editor-pane">
      <div className="toolbar" role="toolbar" aria-label="Folder actions">
        <h2 className="file-title" title={`${path}/`}>
          {path}/
        </h2>
        <button
          onClick={() => {
            back.remember();
            setMode('rename');
          }}
        >
          Rename
        </button>
        <button
          className="danger apart"
          onClick={() => {
            back.remember();
            setMode('delete');
          }}
        >
          Delete
        </button>
      </div>
      <p className="empty">
        {count} {count === 1 ? 'item' : 'items'} inside.
      </p>
      {mode === 'rename' && <RenameForm path={path} project={project} onRenamed={onRenamed} onCancel={closeAsk} onError={setError} />}
      {mode === 'delete' && (
        <div role="alertdialog" aria-labelledby="delete-folder-q" className="confirm" onKeyDown={(e) => e.key === 'Escape' && closeAsk()}>
          <p id="delete-folder-q">
            Delete the folder {path} and the {count} {count === 1 ? 'item' : 'items'} in it? Its memories move to the trash (under Memories), where they can be restored until the trash is emptied.
          </p>
          <button className="danger" onClick={() => void call('memoryDelete', { path, project }).then(onDeleted, (err: unknown) => setError(messageOf(err)))}>Delete</button>
          <button onClick={closeAsk} autoFocus>
            Cancel
          </button>
        </div>
      )}
      <ErrorText message={error} />
    </div>
  );
}
