import { useCallback, useEffect, useState } from 'react';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { DeletedProject, Project } from '../../../electron/shared/projects';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { keysOf } from '../../lib/shortcuts';
import { ProjectBar } from './ProjectBar';
import { useChatRequests } from './requests';

const FIRST = 'default';
const PICKED = 'mnemo.project';

/** What "New conversation" makes: a conversation in a project, stored or temporary. */
export interface NewConversation {
  project: string;
  temporary?: boolean;
}

/**
 * Conversations grouped by project, newest first in each: the project picker
 * (with create, rename, delete), new and temporary chats in the picked
 * project, search, rename, delete (with confirmation).
 */
export function Sidebar({ list, selected, onSelect, onNew, onChanged }: { list: ConversationSummary[]; selected: string | undefined; onSelect: (id: string) => void; onNew: (opts: NewConversation) => void; onChanged: () => void }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Array<ConversationSummary & { snippet: string }>>();
  const [error, setError] = useState<string>();
  const [projects, setProjects] = useState<Project[]>([]);
  const [deleted, setDeleted] = useState<DeletedProject[]>([]);
  // Only the project's random id is kept in the page's storage, so the picker survives a lock or restart.
  const [current, setCurrent] = useState(() => localStorage.getItem(PICKED) ?? FIRST);
  const pick = (id: string) => {
    localStorage.setItem(PICKED, id);
    setCurrent(id);
  };
  const loadProjects = useCallback(async () => {
    try {
      const all = await call('projectsList');
      setProjects(all.projects);
      setDeleted(all.deleted);
    } catch (e) {
      setError(messageOf(e));
    }
  }, []);
  useEffect(() => void loadProjects(), [loadProjects]);
  const picked = projects.some((p) => p.id === current) ? current : FIRST;
  // "Go to" a project picks it; a new conversation (its shortcut, the palette) goes to the picked project, as the button does.
  useChatRequests((r) => {
    // The list is read again: the project may be new since it was last read (made by the CLI).
    if (r.kind === 'project') void loadProjects().then(() => pick(r.id));
    else if (r.kind === 'new') onNew({ project: picked, ...(r.temporary ? { temporary: true } : {}) });
  });

  const item = (c: ConversationSummary) => <ConversationItem key={c.id} c={c} selected={c.id === selected} onSelect={onSelect} onChanged={onChanged} />;
  // Search crosses projects, so each result says which one it is in.
  const projectName = (c: ConversationSummary) => projects.find((p) => p.id === (c.project ?? FIRST))?.name;
  return (
    <nav className="sidebar conversations" aria-label="Conversations">
      <ProjectBar
        projects={projects}
        deleted={deleted}
        current={picked}
        onPick={pick}
        onChanged={async () => {
          await loadProjects();
          onChanged();
        }}
      />
      <button onClick={() => onNew({ project: picked })} title={`New conversation (${keysOf('newConversation')})`}>
        New conversation
      </button>
      <button onClick={() => onNew({ project: picked, temporary: true })} title="A chat that is not kept and cannot change memory">
        New temporary chat
      </button>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (!query.trim()) return setHits(undefined);
          void call('chatSearch', { query: query.trim() }).then(setHits, (err: unknown) => setError(messageOf(err)));
        }}
      >
        <input type="search" aria-label="Search conversations" placeholder="Search conversations" value={query} onChange={(e) => (setQuery(e.target.value), e.target.value ? undefined : setHits(undefined))} />
      </form>
      <ErrorText message={error} />
      {hits ? (
        <ul>
          {hits.length === 0 && <li className="empty">Nothing found.</li>}
          {hits.map((h) => <ConversationItem key={h.id} c={h} project={projectName(h)} selected={h.id === selected} onSelect={onSelect} onChanged={onChanged} />)}
        </ul>
      ) : (
        projects.map((p) => {
          // Conversations of a deleted project are not in any group: they come back when the project is restored.
          const mine = list.filter((c) => (c.project ?? FIRST) === p.id);
          return (
            <section key={p.id} aria-label={`Project ${p.name}`} className={p.id === picked ? 'project picked' : 'project'}>
              <h3>{p.name}</h3>
              <ul>
                {mine.length === 0 && <li className="empty">No conversations yet.</li>}
                {mine.map(item)}
              </ul>
            </section>
          );
        })
      )}
    </nav>
  );
}

/** One conversation in the list, with rename and delete (confirmed); a temporary chat says so, and closing it forgets it. */
function ConversationItem({ c, project, selected, onSelect, onChanged }: { c: ConversationSummary & { snippet?: string }; project?: string | undefined; selected: boolean; onSelect: (id: string) => void; onChanged: () => void }) {
  const [renaming, setRenaming] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<string>();
  const act = (p: Promise<unknown>) =>
    p.then(
      () => {
        setError(undefined);
        onChanged();
      },
      (e: unknown) => setError(messageOf(e)),
    );
  const label = c.temporary ? `${c.title} (temporary)` : c.title;
  return (
    <li className={selected ? 'selected' : ''}>
      {renaming !== undefined ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(call('chatRename', { id: c.id, title: renaming })).then(() => setRenaming(undefined));
          }}
        >
          <input aria-label="Conversation title" value={renaming} onChange={(e) => setRenaming(e.target.value)} autoFocus />
          <button type="submit">Save title</button>
        </form>
      ) : (
        <button className="conv" aria-current={selected ? 'true' : undefined} onClick={() => onSelect(c.id)}>
          {label}
          {c.snippet !== undefined && <span className="snippet">{c.snippet}</span>}
          {project !== undefined && <span className="snippet">in {project}</span>}
        </button>
      )}
      <button className="small" aria-label={`Rename ${c.title}`} onClick={() => setRenaming(c.title)}>
        ✎
      </button>
      <button className="small" aria-label={`${c.temporary ? 'Close' : 'Delete'} ${c.title}`} onClick={() => setDeleting(true)}>
        ✕
      </button>
      {deleting && (
        <ConfirmDialog label={c.temporary ? 'Close temporary chat' : 'Delete conversation'} onCancel={() => setDeleting(false)}>
          <p>{c.temporary ? `Close “${c.title}”? A temporary chat is not kept: it will be gone.` : `Delete “${c.title}”? This cannot be undone.`}</p>
          <button onClick={() => void act(call('chatDelete', { id: c.id })).then(() => setDeleting(false))}>{c.temporary ? 'Close' : 'Delete'}</button>
          <button data-cancel onClick={() => setDeleting(false)}>
            Cancel
          </button>
        </ConfirmDialog>
      )}
      <ErrorText message={error} />
    </li>
  );
}
