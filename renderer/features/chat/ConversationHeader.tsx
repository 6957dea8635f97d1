import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ContextUse } from '../../../electron/shared/projects';
import type { Conversation } from '../../../electron/shared/ipc-values';
import { call, messageOf } from '../../lib/api';
import { formatNumber, formatTokens } from '../../lib/format';
import './Temporary.css';

/** Past this share of the window the meter warns in words, not by colour alone. */
export const NEARLY_FULL = 0.8;

/**
 * Above the messages: how much of the model's context window the open
 * conversation uses (asked again when it opens and after each reply), and
 * "Export…" to save it as Markdown through main's save dialog. A meter that
 * cannot be had is left out: it is a guide, never a blocker.
 */
export function ConversationHeader({ conversation, busy, active, end }: { conversation: Conversation | undefined; busy: boolean; active: boolean; end?: ReactNode }) {
  const { t } = useTranslation('chat');
  const id = conversation?.id;
  // Changes when an entry is added or taken back, i.e. when a turn has ended or a rewind has happened.
  const size = conversation ? (conversation.earlier ?? 0) + conversation.transcript.length : 0;
  // Changes too when another version is shown, which may hold as many entries as the one before.
  const updated = conversation?.updated;
  // The window is the conversation's model's: picking another one beside the message box counts again.
  const model = conversation?.model;
  const [use, setUse] = useState<{ id: string; value: ContextUse }>();
  const [exported, setExported] = useState<{ id: string; saved?: boolean; error?: string }>();
  const asked = useRef(0);

  useEffect(() => {
    // While Claude answers the count would be of a history about to change: wait for the turn's end.
    if (!id || busy || !active) return;
    const mine = ++asked.current;
    call('chatContext', { id }).then(
      (value) => mine === asked.current && setUse({ id, value }),
      // A meter that could not be had is shown as nothing rather than as an error.
      () => mine === asked.current && setUse(undefined),
    );
  }, [id, size, updated, busy, active, model]);

  // With no conversation open the header keeps only what `end` holds (the memory pane's toggle), in the same place.
  if (!conversation)
    return end ? (
      <div className="conv-header" role="group" aria-label={t('header.label')}>
        <div className="conv-actions">{end}</div>
      </div>
    ) : null;
  const meter = use?.id === conversation.id ? use.value : undefined;
  const share = meter && meter.window > 0 ? meter.used / meter.window : 0;
  const full = share >= NEARLY_FULL;
  const words = meter ? t('header.tokens', { used: formatTokens(meter.used), window: formatTokens(meter.window) }) : '';
  const mine = exported?.id === conversation.id ? exported : undefined;
  const empty = size === 0;

  const exportIt = async () => {
    setExported({ id: conversation.id });
    try {
      const { saved } = await call('chatExport', { id: conversation.id });
      // Cancelling the dialog is not news: nothing is said.
      setExported({ id: conversation.id, ...(saved ? { saved: true } : {}) });
    } catch (err) {
      setExported({ id: conversation.id, error: messageOf(err) });
    }
  };

  return (
    <div className="conv-header" role="group" aria-label={t('header.label')}>
      {conversation.temporary && (
        <span className="temporary-label" title={t('header.temporaryTitle')}>
          {t('header.temporary')}
        </span>
      )}
      {meter && (
        <div className={`context-meter${full ? ' full' : ''}`}>
          <span className="context-label">{t('header.context')}</span>
          <meter
            title={words}
            min={0}
            max={meter.window}
            value={Math.min(meter.used, meter.window)}
            high={meter.window * NEARLY_FULL}
            optimum={0}
            aria-label={t('header.contextLabel')}
            aria-valuetext={t('header.contextValue', { percent: formatNumber(Math.round(share * 100) / 100, { style: 'percent' }), tokens: words })}
          />
          <span className="context-text">{words}</span>
        </div>
      )}
      <span role="status" className="context-warning">
        {meter && full ? (
          <>
            <span aria-hidden="true">⚠ </span>
            {share >= 1 ? t('header.full') : t('header.nearlyFull')}
          </>
        ) : null}
      </span>
      <div className="conv-actions">
        <button type="button" onClick={() => void exportIt()} disabled={empty} title={t('header.exportTitle')}>
          {t('header.export')}
        </button>
        <span role="status" className="saved">
          {mine?.saved ? t('header.saved') : null}
        </span>
        {mine?.error && (
          <p role="alert" className="error">
            {mine.error}
          </p>
        )}
        {end}
      </div>
    </div>
  );
}
