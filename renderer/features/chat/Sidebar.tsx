import { useState } from 'react';
import type { ConversationSummary } from '../../../electron/shared/chat';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { call, messageOf } from '../../lib/api';

/** Conversations, newest first: new, search, rename, delete (with confirmation). */
export function Sidebar({ list, selected, onSelect, onNew, onChanged }: { list: ConversationSummary[]; selected: string | undefined; onSelect: (id: string) => void; onNew: () => void; onChanged: () => void }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Array<ConversationSummary & { snippet: string }>>();
  const [renaming, setRenaming] = useState<{ id: string; title: string }>();
  const [deleting, setDeleting] = useState<string>();
  const [error, setError] = useState<string>();
  const act = (p: Promise<unknown>) =>
    p.then(
      () => {
        setError(undefined);
        onChanged();
      },
      (e: unknown) => setError(messageOf(e)),
    );
  const shown = hits ?? list;
  return (
    <nav className="sidebar conversations" aria-label="Conversations">
      <button onClick={onNew} title="New conversation (Ctrl+K)">
        New conversation
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
      {error && <p role="alert" className="error">{error}</p>}
      <ul>
        {shown.length === 0 && <li className="empty">{hits ? 'Nothing found.' : 'No conversations yet.'}</li>}
        {shown.map((c) => (
          <li key={c.id} className={c.id === selected ? 'selected' : ''}>
            {renaming?.id === c.id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(call('chatRename', { id: c.id, title: renaming.title })).then(() => setRenaming(undefined));
                }}
              >
                <input aria-label="Conversation title" value={renaming.title} onChange={(e) => setRenaming({ id: c.id, title: e.target.value })} autoFocus />
                <button type="submit">Save title</button>
              </form>
            ) : (
              <button className="conv" aria-current={c.id === selected ? 'true' : undefined} onClick={() => onSelect(c.id)}>
                {c.title}
                {'snippet' in c && <span className="snippet">{(c as { snippet: string }).snippet}</span>}
              </button>
            )}
            <button className="small" aria-label={`Rename ${c.title}`} onClick={() => setRenaming({ id: c.id, title: c.title })}>
              ✎
            </button>
            <button className="small" aria-label={`Delete ${c.title}`} onClick={() => setDeleting(c.id)}>
              ✕
            </button>
            {deleting === c.id && (
              <ConfirmDialog label="Delete conversation" onCancel={() => setDeleting(undefined)}>
                <p>Delete “{c.title}”? This cannot be undone.</p>
                <button onClick={() => void act(call('chatDelete', { id: c.id })).then(() => setDeleting(undefined))}>Delete</button>
                <button data-cancel onClick={() => setDeleting(undefined)}>
                  Cancel
                </button>
              </ConfirmDialog>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
