import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, messageOf } from '../../lib/api';
import { useProjects } from './projects';
import { imeOwnsKey } from '../../lib/keys';

/**
 * Move (with its history) or copy one memory file into another project's
 * memory, at the same path or another one. Main checks the path rules, the
 * other project's trash and the vault's size limit, and says why it refuses.
 */
export function TransferForm({ path, project, onDone, onCancel, onError }: { path: string; project: string; onDone: (mode: 'move' | 'copy', toName: string) => void; onCancel: () => void; onError: (message: string) => void }) {
  const { t } = useTranslation('memories');
  const [projects] = useProjects(path);
  const others = projects?.filter((p) => p.id !== project) ?? [];
  const [to, setTo] = useState<string>();
  const [toPath, setToPath] = useState(path);
  const [mode, setMode] = useState<'move' | 'copy'>('copy');
  const target = to ?? others[0]?.id;
  if (projects && others.length === 0)
    return (
      <div className="inline-form">
        <p>{t('transfer.noOther')}</p>
        <button onClick={onCancel} autoFocus>
          {t('actions.close')}
        </button>
      </div>
    );
  return (
    <form
      className="inline-form"
      aria-label={t('transfer.label')}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !imeOwnsKey(e)) onCancel();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        if (!target) return;
        const name = others.find((p) => p.id === target)?.name ?? t('transfer.otherProject');
        void call('memoryTransfer', { fromProject: project, path, toProject: target, toPath: toPath.trim(), mode }).then(
          () => onDone(mode, name),
          (err: unknown) => onError(messageOf(err)),
        );
      }}
    >
      <label>
        {t('transfer.toProject')}
        <select value={target ?? ''} onChange={(e) => setTo(e.target.value)} autoFocus>
          {others.map((p) => (
            <option key={p.id} value={p.id} dir="auto">
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('transfer.pathThere')}
        <input value={toPath} onChange={(e) => setToPath(e.target.value)} />
      </label>
      <fieldset className="row">
        <legend>{t('transfer.keepHere')}</legend>
        <label>
          <input type="radio" name="transfer-mode" checked={mode === 'copy'} onChange={() => setMode('copy')} /> {t('transfer.copyMode')}
        </label>
        <label>
          <input type="radio" name="transfer-mode" checked={mode === 'move'} onChange={() => setMode('move')} /> {t('transfer.moveMode')}
        </label>
      </fieldset>
      <button type="submit" disabled={!target}>
        {mode === 'move' ? t('transfer.move') : t('transfer.copy')}
      </button>
      <button type="button" onClick={onCancel}>
        {t('actions.cancel')}
      </button>
    </form>
  );
}
