import { useState } from 'react';
import type { DeletedProject, Project } from '../../../electron/shared/projects';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';

const FIRST = 'default';

/**
 * The project picker, with create, rename and delete (each confirmed in place)
 * and the deleted projects, which wait in the vault to be restored. New
 * conversations go to the picked project.
 */
export function ProjectBar({ projects, deleted, current, onPick, onChanged }: { projects: Project[]; deleted: DeletedProject[]; current: string; onPick: (id: string) => void; onChanged: () => Promise<void> }) {
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
      <label>
        Project{' '}
        <select aria-label="Project" value={picked?.id ?? FIRST} onChange={(e) => onPick(e.target.value)}>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button className="small" onClick={() => (setDeleting(false), setForm({ kind: 'create', name: '' }))}>
        New project
      </button>
      <button className="small" aria-label={`Rename project ${picked?.name ?? ''}`} onClick={() => (setDeleting(false), setForm({ kind: 'rename', name: picked?.name ?? '' }))}>
        Rename project
      </button>
      {picked && picked.id !== FIRST && (
        <button className="small" aria-label={`Delete project ${picked.name}`} onClick={() => (setForm(undefined), setDeleting(true))}>
          Delete project
        </button>
      )}
      {deleted.length > 0 && (
        <button className="small" onClick={() => (setForm(undefined), setDeleting(false), setRestoring(true))}>
          Deleted projects ({deleted.length})
        </button>
      )}
      {restoring && deleted.length > 0 && (
        <ConfirmDialog label="Deleted projects" role="dialog" onCancel={() => setRestoring(false)}>
          <p>Deleted projects keep their conversations and memories in the vault. Restoring one brings them back.</p>
          <ul className="deleted-projects">
            {deleted.map((p) => (
              <li key={p.id}>
                <span>
                  {p.name} <span className="meta">deleted {new Date(p.deleted).toLocaleString()}</span>
                </span>
                <button aria-label={`Restore ${p.name}`} onClick={() => void act(call('projectsRestore', { id: p.id }), (r) => (onPick(r.id), setRestoring(deleted.length > 1)))}>
                  Restore
                </button>
              </li>
            ))}
          </ul>
          <button data-cancel onClick={() => setRestoring(false)}>
            Close
          </button>
        </ConfirmDialog>
      )}
      {form && (
        <form
          className="inline-form"
          aria-label={form.kind === 'create' ? 'New project' : 'Rename project'}
          onSubmit={(e) => {
            e.preventDefault();
            if (form.kind === 'create') {
              void act(call('projectsCreate', { name: form.name }), (p) => (onPick(p.id), setForm(undefined)));
            } else if (picked) {
              void act(call('projectsRename', { id: picked.id, name: form.name }), () => setForm(undefined));
            }
          }}
        >
          <input aria-label="Project name" maxLength={400} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} autoFocus />
          <button type="submit">{form.kind === 'create' ? 'Create project' : 'Save name'}</button>
          <button type="button" onClick={() => (setForm(undefined), setError(undefined))}>
            Cancel
          </button>
        </form>
      )}
      {deleting && picked && (
        <ConfirmDialog label="Delete project" onCancel={() => setDeleting(false)}>
          <p>
            Delete the project “{picked.name}”? Its conversations and memories are hidden, not destroyed: they stay in the vault and the project can be restored (mnemo projects restore).
          </p>
          <button className="danger" onClick={() => void act(call('projectsDelete', { id: picked.id }), () => (setDeleting(false), onPick(FIRST)))}>Delete project</button>
          <button data-cancel onClick={() => setDeleting(false)}>
            Cancel
          </button>
        </ConfirmDialog>
      )}
      <ErrorText message={error} />
    </div>
  );
}
