import { useContext } from 'react';
import { useTranslation } from 'react-i18next';
import type { AttachmentRef } from '../../../electron/shared/chat';
import { imeOwnsKey } from '../../lib/keys';
import { SentAttachments } from './Attachments';
import { EntryActionsContext } from './versions';
import './EditMessage.css';

/**
 * A sent message being edited, in its own place: Enter (or "Save & send")
 * sends the new text as another version of the message, Shift+Enter breaks
 * the line, Escape (or Cancel) closes it and focus goes back to its Edit
 * button. The text lives in the chat, not here: the message's row may leave
 * the page as the list scrolls, and what was typed must not go with it.
 * The message's attachments go again with the new text, so they are shown.
 */
export function EditMessage({ text, attachments }: { text: string; attachments: AttachmentRef[] | undefined }) {
  const { t } = useTranslation('chat');
  const actions = useContext(EntryActionsContext);
  const empty = !text.trim() && !attachments?.length;
  return (
    <form
      className="edit-message"
      onSubmit={(e) => {
        e.preventDefault();
        if (!empty) actions.sendEdit();
      }}
    >
      {attachments?.length ? <SentAttachments items={attachments} /> : null}
      {/* Not named "… message": the message box keeps the only such name, which people and tests look for. */}
      <textarea
        className="edit-message-input"
        aria-label={t('edit.field')}
        dir="auto"
        value={text}
        rows={Math.min(12, Math.max(2, text.split('\n').length))}
        onChange={(e) => actions.editText(e.target.value)}
        onKeyDown={(e) => {
          if (imeOwnsKey(e)) return;
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            if (!empty) actions.sendEdit();
          } else if (e.key === 'Escape') {
            // Escape here closes the editor; it must not also reach the window's "stop the reply".
            e.preventDefault();
            e.stopPropagation();
            actions.cancelEdit();
          }
        }}
      />
      <div className="edit-message-row">
        <button type="submit" disabled={empty}>
          {t('edit.send')}
        </button>
        <button type="button" onClick={actions.cancelEdit}>
          {t('edit.cancel')}
        </button>
        <span className="edit-message-hint">{t('edit.hint')}</span>
      </div>
    </form>
  );
}
