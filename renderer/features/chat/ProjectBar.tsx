import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DeletedProject, Project } from '../../../electron/shared/projects';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorText } from '../../components/ErrorText';
import { Listbox } from '../../components/Listbox';
import { call, messageOf } from '../../lib/api';
import { formatDateTime, formatNumber } from '../../lib/format';

const FIRST = 'default';

/**
 * The project picker, with create, rename and delete (each confirmed in place)
 * and the deleted projects, which wait in the vault to be restored. New
 * conversations go to the picked project.
 */
export function ProjectBar({ projects, deleted, current, onPick, onChanged }: { projects: Project[]; deleted: DeletedProject[]; current: string; onPick: (id: string) => void; onChanged: () => Promise<void> }) {
  const { t } = useTranslation('chat');
  const [form, setForm] = useState<{ kind: 'create' | 'rename'; name: string }>();
  const [deleting, setDeleting] = useState(false);
  const [restoring, setRestoring] = useState(false);
  const [error, setError] = useState<string>();
  const picked = projects.find((p) => p.id === current) ?? projects[0];
  // The list is read again before `after` picks a project: picked before it is listed, the picker (and "New
  // conversation") would fall back to the first project meanwhile.
  const act = async <T,>(p: Promise<T>, after: (result: T) => void) => {
    try {
      const result = await p;
      setError(undefined);
      await onChanged();
      after(result);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <div className="project-bar">
      {/* A listbox like the model picker's (not a native select): the same keys, look and type-ahead everywhere. */}
      <div className="project-pick">
        <span aria-hidden="true">{t('project.label')}</span>
        <Listbox
          className="project-listbox"
          label={t('project.label')}
          value={picked?.id ?? FIRST}
          choices={projects.map((p) => ({ value: p.id, short: p.name, name: p.name, literal: true }))}
          onChange={(id) => id !== null && onPick(id)}
        />
      </div>
      <button className="small" onClick={() => (setDeleting(false), setForm({ kind: 'create', name: '' }))}>
        {t('project.new')}
      </button>
      <button className="small" aria-label={t('project.renameLabel', { name: picked?.name ?? '' })} onClick={() => (setDeleting(false), setForm({ kind: 'rename', name: picked?.name ?? '' }))}>
        {t('project.rename')}
      </button>
      {picked && picked.id !== FIRST && (
        <button className="small" aria-label={t('project.deleteLabel', { name: picked.name })} onClick={() => (setForm(undefined), setDeleting(true))}>
          {t('project.delete')}
        </button>
      )}
      {deleted.length > 0 && (
        <button className="small" onClick={() => (setForm(undefined), setDeleting(false), setRestoring(true))}>
          {t('project.deleted', { total: formatNumber(deleted.length) })}
        </button>
      )}
      {restoring && deleted.length > 0 && (
        <ConfirmDialog label={t('project.deletedTitle')} role="dialog" onCancel={() => setRestoring(false)}>
          <p>{t('project.deletedIntro')}</p>
          <ul className="deleted-projects">
            {deleted.map((p) => (
              <li key={p.id}>
                <span>
                  <bdi>{p.name}</bdi> <span className="meta">{t('project.deletedAt', { date: formatDateTime(p.deleted) })}</span>
                </span>
                <button aria-label={t('project.restoreLabel', { name: p.name })} onClick={() => void act(call('projectsRestore', { id: p.id }), (r) => (onPick(r.id), setRestoring(deleted.length > 1)))}>
                  {t('project.restore')}
                </button>
              </li>
            ))}
          </ul>
          <button data-cancel onClick={() => setRestoring(false)}>
            {t('project.close')}
          </button>
        </ConfirmDialog>
      )}
      {form && (
        <form
          className="inline-form"
          aria-label={form.kind === 'create' ? t('project.new') : t('project.rename')}
          onSubmit={(e) => {
            e.preventDefault();
            if (form.kind === 'create') {
              void act(call('projectsCreate', { name: form.name }), (p) => (onPick(p.id), setForm(undefined)));
            } else if (picked) {
              void act(call('projectsRename', { id: picked.id, name: form.name }), () => setForm(undefined));
            }
          }}
        >
          <input aria-label={t('project.nameField')} dir="auto" maxLength={400} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} autoFocus />
          <button type="submit">{form.kind === 'create' ? t('project.create') : t('project.saveName')}</button>
          <button type="button" onClick={() => (setForm(undefined), setError(undefined))}>
            {t('project.cancel')}
          </button>
        </form>
      )}
      {deleting && picked && (
        <ConfirmDialog label={t('project.delete')} onCancel={() => setDeleting(false)}>
          <p>
            <Trans t={t} i18nKey="project.deleteQuestion" values={{ name: picked.name }} components={[<bdi />, <code translate="no" />]} />
          </p>
          <button className="danger" onClick={() => void act(call('projectsDelete', { id: picked.id }), () => (setDeleting(false), onPick(FIRST)))}>
            {t('project.delete')}
          </button>
          <button data-cancel onClick={() => setDeleting(false)}>
            {t('project.cancel')}
          </button>
        </ConfirmDialog>
      )}
      <ErrorText message={error} />
    </div>
  );
}
