import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { isolatedPath, PathText } from './PathText';
import { RenameForm } from './RenameForm';
import { useAskedMode } from './useReturnFocus';
import type { AskedMode } from './navigation';

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
  /** Rename or delete asked for from the tree (F2, Delete); `n` changes with each ask. A folder has no history to show. */
  request?: { mode: AskedMode; n: number } | undefined;
  onRenamed: (to: string) => void;
  onDeleted: () => void;
}) {
  const { t } = useTranslation('memories');
  const { mode, setMode, back, closeAsk } = useAskedMode<'idle', AskedMode>('idle', request, path);
  const [error, setError] = useState<string>();
  return (
    <div className="editor-pane">
      <div className="toolbar" role="toolbar" aria-label={t('folder.toolbar')}>
        <h2 className="file-title" title={isolatedPath(`${path}/`)} data-user-text="">
          <PathText path={path} suffix="/" />
        </h2>
        <button
          onClick={() => {
            back.remember();
            setMode('rename');
          }}
        >
          {t('actions.rename')}
        </button>
        <button
          className="danger apart"
          onClick={() => {
            back.remember();
            setMode('delete');
          }}
        >
          {t('actions.delete')}
        </button>
      </div>
      <p className="empty">{t('folder.items', { count })}</p>
      {mode === 'rename' && <RenameForm path={path} project={project} onRenamed={onRenamed} onCancel={closeAsk} onError={setError} />}
      {mode === 'delete' && (
        <div role="alertdialog" aria-labelledby="delete-folder-q" className="confirm" onKeyDown={(e) => e.key === 'Escape' && closeAsk()}>
          <p id="delete-folder-q">
            <Trans t={t} i18nKey="folder.deleteQuestion" count={count} components={[<PathText path={path} />]} />
          </p>
          <button className="danger" onClick={() => void call('memoryDelete', { path, project }).then(onDeleted, (err: unknown) => setError(messageOf(err)))}>
            {t('actions.delete')}
          </button>
          <button onClick={closeAsk} autoFocus>
            {t('actions.cancel')}
          </button>
        </div>
      )}
      <ErrorText message={error} />
    </div>
  );
}
