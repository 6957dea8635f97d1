import { memo, useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ConversationSummary } from '../../../electron/shared/chat';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorText } from '../../components/ErrorText';
import { MenuButton, type MenuItem } from '../../components/MenuButton';
import { call, messageOf } from '../../lib/api';
import { imeOwnsKey } from '../../lib/keys';
import { TemporaryBadge } from './TemporaryBadge';

/** What a row tells the list after an action, so the list can put focus where the conversation went. */
export type RowChange = { id: string; kind: 'renamed' | 'pinned' | 'unpinned' | 'archived' | 'unarchived' | 'deleted' };

/**
 * One conversation on one line: its title (ellipsised; the whole title on
 * hover), and a "⋯" menu (rename, pin, archive, delete). On the focused row,
 * F2 renames, Delete asks to delete, and the context-menu key (or Shift+F10)
 * opens the menu. Kept cheap: the menu, the rename field and the confirmation
 * exist only while in use, so a thousand rows are a thousand buttons and a few.
 */
export const ConversationRow = memo(ConversationRowView, (a, b) => a.selected === b.selected && a.onSelect === b.onSelect && a.onChanged === b.onChanged && sameSummary(a.c, b.c));

/** Every refresh of the list brings new objects: a row renders again only when what it shows has changed. */
function sameSummary(a: ConversationSummary, b: ConversationSummary): boolean {
  return a === b || (a.id === b.id && a.title === b.title && a.temporary === b.temporary && a.pinned === b.pinned && a.archived === b.archived);
}

function ConversationRowView({ c, selected, onSelect, onChanged }: { c: ConversationSummary; selected: boolean; onSelect: (id: string) => void; onChanged: (change: RowChange) => void }) {
  const { t } = useTranslation('chat');
  const [renaming, setRenaming] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [menuAsked, setMenuAsked] = useState(0);
  const [error, setError] = useState<string>();
  const button = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  // After a rename (saved or cancelled), focus goes back to the row, not to the page.
  useEffect(() => {
    if (renaming !== undefined) wasRenaming.current = true;
    else if (wasRenaming.current) {
      wasRenaming.current = false;
      button.current?.focus();
    }
  }, [renaming]);
  const act = (p: Promise<unknown>, kind: RowChange['kind']) =>
    p.then(
      () => {
        setError(undefined);
        onChanged({ id: c.id, kind });
        return true;
      },
      (e: unknown) => (setError(messageOf(e)), false),
    );
  const flag = (flags: { pinned?: boolean; archived?: boolean }, kind: RowChange['kind']) => void act(call('chatSetFlags', { id: c.id, ...flags }), kind);
  // The title is the user's (or a small model's): isolated. A temporary chat's mark goes before it, where an ellipsis never reaches.
  const label = (
    <>
      {c.temporary && <TemporaryBadge />}
      <bdi>{c.title}</bdi>
    </>
  );
  const items: MenuItem[] = [
    { label: t('row.rename'), onSelect: () => setRenaming(c.title) },
    c.pinned ? { label: t('row.unpin'), onSelect: () => flag({ pinned: false }, 'unpinned') } : { label: t('row.pin'), onSelect: () => flag({ pinned: true }, 'pinned') },
    ...(c.temporary ? [] : [c.archived ? { label: t('row.unarchive'), onSelect: () => flag({ archived: false }, 'unarchived') } : { label: t('row.archive'), onSelect: () => flag({ archived: true }, 'archived') }]),
    { label: c.temporary ? t('row.close') : t('row.delete'), onSelect: () => setDeleting(true) },
  ];
  return (
    <li className={selected ? 'conv-row selected' : 'conv-row'}>
      {renaming !== undefined ? (
        <form
          className="conv-rename"
          onSubmit={(e) => {
            e.preventDefault();
            void act(call('chatRename', { id: c.id, title: renaming }), 'renamed').then((ok) => ok && setRenaming(undefined));
          }}
        >
          <input
            aria-label={t('row.titleField')}
            dir="auto"
            value={renaming}
            onChange={(e) => setRenaming(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Escape' || imeOwnsKey(e)) return;
              // Escape cancels the rename only (the old title stays); focus goes back to the row.
              e.preventDefault();
              e.stopPropagation();
              setRenaming(undefined);
              setError(undefined);
            }}
            autoFocus
          />
          <button type="submit" className="small">
            {t('row.saveTitle')}
          </button>
        </form>
      ) : (
        <button
          ref={button}
          className="conv"
          data-conv={c.id}
          aria-current={selected ? 'true' : undefined}
          title={c.temporary ? t('row.temporaryPlain', { title: c.title }) : c.title}
          // A stored conversation's button says only its title, the user's (or Claude's) words, tooltip included.
          data-user-text={c.temporary ? undefined : ''}
          onClick={() => onSelect(c.id)}
          onKeyDown={(e) => {
            if (e.key === 'F2') setRenaming(c.title);
            else if (e.key === 'Delete') setDeleting(true);
            else if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) setMenuAsked((n) => n + 1);
            else return;
            e.preventDefault();
          }}
        >
          {label}
        </button>
      )}
      {renaming === undefined && <MenuButton label={t('row.more', { title: c.title })} items={items} open={menuAsked} />}
      {deleting && (
        <ConfirmDialog label={c.temporary ? t('row.closeTitle') : t('row.deleteTitle')} onCancel={() => setDeleting(false)}>
          <p>
            <Trans t={t} i18nKey={c.temporary ? 'row.closeQuestion' : 'row.deleteQuestion'} values={{ title: c.title }} components={[<bdi />]} />
          </p>
          <button onClick={() => void act(call('chatDelete', { id: c.id }), 'deleted').then(() => setDeleting(false))}>{c.temporary ? t('row.close') : t('row.delete')}</button>
          <button data-cancel onClick={() => setDeleting(false)}>
            {t('row.cancel')}
          </button>
        </ConfirmDialog>
      )}
      <ErrorText message={error} />
    </li>
  );
}
