import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, messageOf } from '../../lib/api';
import { imeOwnsKey } from '../../lib/keys';

/** Rename or move a memory or folder: one path field, checked by main against the memory path rules. */
export function RenameForm({ path, project, onRenamed, onCancel, onError }: { path: string; project: string; onRenamed: (to: string) => void; onCancel: () => void; onError: (message: string) => void }) {
  const { t } = useTranslation('memories');
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
        {t('rename.newPath')}
        <input value={newPath} onChange={(e) => setNewPath(e.target.value)} autoFocus />
      </label>
      <button type="submit">{t('actions.rename')}</button>
      <button type="button" onClick={onCancel}>
        {t('actions.cancel')}
      </button>
    </form>
  );
}
