import { useState, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { PendingChips, type AttachmentsState } from './Attachments';
import { imeOwnsKey } from '../../lib/keys';
import { keysOf } from '../../lib/shortcuts';
import '../../components/PrimaryButton.css';

interface Props {
  draft: string;
  setDraft: (text: string) => void;
  input: RefObject<HTMLTextAreaElement | null>;
  /** A reply is streaming: Stop instead of Send. */
  busy: boolean;
  /** The message just sent is on its way to main (see use-turn.ts). */
  sending?: boolean;
  onSend: () => void;
  onStop: () => void;
  /** Shown when there is a last message to edit: opens its editor in place. */
  onEditLast?: (() => void) | undefined;
  total: string;
  attachments: AttachmentsState;
  /** The conversation's model picker. */
  model?: ReactNode;
}

/**
 * The message box: Enter sends, Shift+Enter breaks the line. Files come in by
 * "Attach files…" (main's dialog), by dropping them on the box, or by pasting
 * an image; they wait as removable chips above the box until sent.
 */
export function Composer({ draft, setDraft, input, busy, sending, onSend, onStop, onEditLast, total, attachments: a, model }: Props) {
  const { t } = useTranslation('chat');
  const [over, setOver] = useState(false);
  const hasFiles = (types: readonly string[]) => types.includes('Files');
  return (
    <form
      className={`composer${over ? ' drop-target' : ''}`}
      onSubmit={(e) => {
        e.preventDefault();
        onSend();
      }}
      onDragOver={(e) => {
        if (!hasFiles(e.dataTransfer.types)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        if (!e.dataTransfer.files.length) return;
        e.preventDefault();
        void a.addFiles([...e.dataTransfer.files]);
        input.current?.focus();
      }}
    >
      <PendingChips items={a.pending} onRemove={(ref) => (a.remove(ref), input.current?.focus())} />
      {a.errors.length > 0 && (
        <div role="alert" className="error attach-errors">
          {a.errors.map((m, i) => (
            <p key={i} dir="auto">
              {m}
            </p>
          ))}
        </div>
      )}
      <p className="sr-only" role="status">
        {a.status}
      </p>
      <textarea
        ref={input}
        className="composer-input"
        aria-label={t('composer.message')}
        placeholder={t('composer.placeholder')}
        // What is typed sets the direction: an Arabic or Hebrew message is written right to left.
        dir="auto"
        value={draft}
        rows={3}
        onChange={(e) => setDraft(e.target.value)}
        onPaste={(e) => {
          // A pasted image (a screenshot) becomes an attachment; pasted text stays text.
          const files = [...e.clipboardData.files];
          if (!files.length) return;
          e.preventDefault();
          void a.addFiles(files);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !imeOwnsKey(e)) {
            e.preventDefault();
            onSend();
          }
        }}
      />
      {/* As in other chat apps: the tools at the left, Send (or Stop) at the right, where the eye ends the line. */}
      <div className="row composer-bar">
        <button type="button" className="attach-button" onClick={() => void a.pick().then(() => input.current?.focus())} title={t('composer.attachTitle')}>
          <svg className="paperclip" aria-hidden="true" viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
            <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" />
          </svg>
          {t('composer.attach')}
        </button>
        {onEditLast && (
          // A tool of the bar like Attach: its size, an icon beside its word.
          <button type="button" className="attach-button edit-last" onClick={onEditLast} title={t('composer.editLastTitle')}>
            <svg aria-hidden="true" viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
              <path d="M12 20h9" />
              <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z" />
            </svg>
            <span className="tool-word">{t('composer.editLast')}</span>
          </button>
        )}
        {model}
        <span className="usage">{total}</span>
        {busy ? (
          <button type="button" className="send" onClick={onStop} title={t('composer.stopTitle', { keys: keysOf('stop') })}>
            {t('composer.stop')}
          </button>
        ) : (
          // While the message is on its way, Send stays where it is (focus too) but is not available: a second press sends nothing.
          <button type="submit" className="primary send" disabled={!draft.trim() && a.pending.length === 0} aria-disabled={sending || undefined}>
            {t('composer.send')}
          </button>
        )}
      </div>
    </form>
  );
}
