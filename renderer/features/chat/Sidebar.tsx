import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { DeletedProject, Project } from '../../../electron/shared/projects';
import { Chevron } from '../../components/Chevron';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { formatNumber } from '../../lib/format';
import { keysOf } from '../../lib/shortcuts';
import { useLiveSearch } from '../../lib/use-live-search';
import { archivedOf, groupConversations } from './conversation-groups';
import { ConversationRow, type RowChange } from './ConversationRow';
import { SearchHits } from './SearchHits';
import { ProjectBar } from './ProjectBar';
import { useChatRequests } from './requests';
import './Sidebar.css';

const FIRST = 'default';
const PICKED = 'mnemo.project';
/** Whether the list is collapsed, for this session (sessionStorage: gone when the app quits). */
const COLLAPSED = 'mnemo.conversations.collapsed';
/** Rows mounted at first, and added each time the end of the list comes into view: a year of chats opens fast. */
const ROWS_PER_PAGE = 150;

/** What "New conversation" makes: a conversation in a project, stored or temporary. */
export interface NewConversation {
  project: string;
  temporary?: boolean;
}

/**
 * The conversation rail: the project picker, then a header that stays put
 * while the list scrolls (new and temporary chats, search as you type, and
 * collapsing the list), then each project's conversations one per line,
 * pinned first and the rest by day and month, and the archived ones at the
 * bottom.
 */
export function Sidebar({ list, selected, onSelect, onNew, onChanged }: { list: ConversationSummary[]; selected: string | undefined; onSelect: (id: string) => void; onNew: (opts: NewConversation) => void; onChanged: () => void }) {
  const { t, i18n } = useTranslation('chat');
  const language = i18n.language;
  const [error, setError] = useState<string>();
  const [projects, setProjects] = useState<Project[]>([]);
  const [deleted, setDeleted] = useState<DeletedProject[]>([]);
  const [collapsed, setCollapsed] = useState(() => sessionStorage.getItem(COLLAPSED) === '1');
  const [showArchived, setShowArchived] = useState(false);
  const [rowLimit, setRowLimit] = useState(ROWS_PER_PAGE);
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
  // A changed list (a conversation deleted, a turn saved) asks again, so results never name what is gone.
  const search = useLiveSearch((query) => call('chatSearch', { query }), String(list.length));

  // Rows are memoised: they get callbacks that stay the same from render to render.
  const selectRef = useRef(onSelect);
  selectRef.current = onSelect;
  const changedRef = useRef(onChanged);
  changedRef.current = onChanged;
  const select = useCallback((id: string) => selectRef.current(id), []);
  /** Where focus goes once the list has the change: the row where it went, or the Archived button. */
  const focusAfter = useRef<RowChange | undefined>(undefined);
  const changed = useCallback((change: RowChange) => {
    if (change.kind !== 'renamed') focusAfter.current = change;
    changedRef.current();
  }, []);
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const change = focusAfter.current;
    if (!change) return;
    const root = nav.current;
    const target =
      change.kind === 'archived' ? root?.querySelector<HTMLElement>('.archived-toggle') : change.kind === 'deleted' ? root?.querySelector<HTMLElement>('.new-conversation') : root?.querySelector<HTMLElement>(`.conv-list button.conv[data-conv="${change.id}"]`);
    if (target) {
      focusAfter.current = undefined;
      target.focus();
    }
  }, [list, showArchived]);

  const groups = useMemo(() => {
    const now = new Date();
    // Conversations of a deleted project are not in any group: they come back when the project is restored.
    return projects.map((p) => ({ project: p, groups: groupConversations(list.filter((c) => (c.project ?? FIRST) === p.id), now) }));
    // The groups' names are in the window's language: made again when it changes.
  }, [projects, list, language]);
  // Only the first `rowLimit` rows (in display order) are mounted; the rest follow as the list scrolls.
  const shown = useMemo(() => {
    let budget = rowLimit;
    const out = groups.map(({ project, groups: all }) => ({
      project,
      empty: all.length === 0,
      groups: all.flatMap((g) => {
        const items = g.items.slice(0, Math.max(0, budget));
        budget -= items.length;
        return items.length ? [{ ...g, items }] : [];
      }),
    }));
    const total = groups.reduce((n, p) => n + p.groups.reduce((m, g) => m + g.items.length, 0), 0);
    return { projects: out, more: total > rowLimit };
  }, [groups, rowLimit]);
  const archived = useMemo(() => archivedOf(list.filter((c) => projects.some((p) => p.id === (c.project ?? FIRST)))), [list, projects]);
  const projectName = (c: ConversationSummary) => projects.find((p) => p.id === (c.project ?? FIRST))?.name;
  const row = (c: ConversationSummary) => <ConversationRow key={c.id} c={c} selected={c.id === selected} onSelect={select} onChanged={changed} />;

  return (
    <nav ref={nav} className="sidebar conversations" aria-label={t('rail.label')} onKeyDown={moveBetweenRows}>
      <div className="rail-head">
        <div className="rail-buttons">
          <button className="new-conversation" onClick={() => onNew({ project: picked })} title={t('rail.newConversationTitle', { keys: keysOf('newConversation') })}>
            {t('rail.newConversation')}
          </button>
          <button
            className="small collapse-toggle"
            aria-expanded={!collapsed}
            aria-controls="conversation-list"
            aria-label={collapsed ? t('rail.showList') : t('rail.hideList')}
            title={collapsed ? t('rail.showList') : t('rail.hideList')}
            onClick={() => {
              sessionStorage.setItem(COLLAPSED, collapsed ? '0' : '1');
              setCollapsed(!collapsed);
            }}
          >
            {/* A disclosure chevron: down while the list shows, toward the text's end while it is hidden. */}
            <Chevron />
          </button>
        </div>
        <button onClick={() => onNew({ project: picked, temporary: true })} title={t('rail.newTemporaryTitle')}>
          {t('rail.newTemporary')}
        </button>
        <form role="search" onSubmit={(e) => e.preventDefault()}>
          {/* What is typed sets the direction, as in the message box. */}
          <input type="search" dir="auto" aria-label={t('rail.search')} placeholder={t('rail.search')} value={search.query} onChange={(e) => search.setQuery(e.target.value)} />
        </form>
      </div>
      {/* As in other chat apps, New conversation comes first; the project it goes to is picked below it, above the list. */}
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
      <ErrorText message={error ?? search.error} />
      {/* A search shows its results even with the list collapsed: what was typed is never answered by nothing. */}
      <div id="conversation-list" className="conv-list" hidden={collapsed && !search.query.trim()}>
        {search.query.trim() ? (
          <SearchHits query={search.query.trim()} answer={search.answer} pending={search.pending} selected={selected} projectName={projectName} onSelect={select} />
        ) : (
          <>
            {shown.projects.map(({ project: p, groups: mine, empty }) => (
              <section key={p.id} aria-label={t('rail.projectSection', { name: p.name })} className={p.id === picked ? 'project picked' : 'project'}>
                <h3 dir="auto">{p.name}</h3>
                {empty && <p className="empty">{t('rail.noConversations')}</p>}
                {mine.map((g) => (
                  <div key={g.key} className="conv-group">
                    <h4 id={`g-${p.id}-${g.key}`}>{g.label}</h4>
                    <ul aria-labelledby={`g-${p.id}-${g.key}`}>{g.items.map(row)}</ul>
                  </div>
                ))}
              </section>
            ))}
            {shown.more && <MoreRows onMore={() => setRowLimit((n) => n + ROWS_PER_PAGE)} />}
            {/* Only there when something is archived: no "Archived (0)" leading to an empty list. */}
            {archived.length > 0 && (
              <div className="archived">
                <button className="small archived-toggle" aria-expanded={showArchived} aria-controls="archived-list" onClick={() => setShowArchived(!showArchived)}>
                  {t('rail.archived', { total: formatNumber(archived.length) })}
                </button>
                {showArchived && (
                  <ul id="archived-list" aria-label={t('rail.archivedList')}>
                    {archived.map(row)}
                  </ul>
                )}
              </div>
            )}
          </>
        )}
      </div>
    </nav>
  );
}

/**
 * The end of the mounted rows: a real button (for the keyboard and screen
 * readers) that also presses itself when it scrolls into view.
 */
function MoreRows({ onMore }: { onMore: () => void }) {
  const { t } = useTranslation('chat');
  const button = useRef<HTMLButtonElement>(null);
  const more = useRef(onMore);
  more.current = onMore;
  useEffect(() => {
    const el = button.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && more.current(), { rootMargin: '200px' });
    seen.observe(el);
    return () => seen.disconnect();
  }, []);
  return (
    <button ref={button} className="small more-rows" onClick={onMore}>
      {t('rail.showMore')}
    </button>
  );
}

/** Up and Down move between conversations in the list, as in a list box; Tab still goes through every control. */
function moveBetweenRows(e: React.KeyboardEvent<HTMLElement>) {
  if ((e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || !(e.target instanceof HTMLElement) || !e.target.matches('.conv-list button.conv')) return;
  const all = [...e.currentTarget.querySelectorAll<HTMLElement>('.conv-list button.conv')];
  const next = all[all.indexOf(e.target) + (e.key === 'ArrowDown' ? 1 : -1)];
  if (!next) {
    // Down on the last mounted row mounts the next ones; the key after it moves on.
    if (e.key === 'ArrowDown') e.currentTarget.querySelector<HTMLButtonElement>('.more-rows')?.click();
    return;
  }
  e.preventDefault();
  next.focus();
}
