import { memo, useContext, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReplyPart, TranscriptEntry } from '../../../electron/shared/chat';
import { Markdown, StreamingMarkdown } from '../../components/Markdown';
import { ToolChip, toolLabel, type ToolView } from './ToolChip';
import { SentAttachments } from './Attachments';
import { CopyButton } from './CopyButton';
import { Thinking } from './Thinking';
import { EditMessage } from './EditMessage';
import { VersionSwitch } from './VersionSwitch';
import { EntryActionsContext, sameDecor, type EntryDecor } from './versions';
import { i18n } from '../../lib/i18n';
import { money, usageLine } from '../../lib/usage';

export { money, usageLine };

type Assistant = Extract<TranscriptEntry, { role: 'assistant' }>;

/** A saved reply's parts in order; replies saved before the order was kept show their memory calls first, as they always did. */
export function partsOf(e: Assistant): ReplyPart[] {
  const parts: ReplyPart[] = e.parts ?? [...e.tools.map((t) => ({ type: 'tool' as const, id: t.id })), ...(e.text ? [{ type: 'text' as const, text: e.text }] : [])];
  // A memory call the parts do not name (it cannot happen today) is still shown, at the end.
  const named = new Set(parts.flatMap((p) => (p.type === 'tool' ? [p.id] : [])));
  return [...parts, ...e.tools.filter((t) => !named.has(t.id)).map((t) => ({ type: 'tool' as const, id: t.id }))];
}

/**
 * A reply's text blocks and memory chips in the order Claude produced them.
 * While streaming, only the last text block is still growing: it alone is parsed again.
 */
export function ReplyBody({ parts, tools, streaming, onOpen, children }: { parts: ReplyPart[]; tools: ToolView[]; streaming?: boolean; onOpen: (path: string) => void; children?: ReactNode }) {
  const byId = new Map(tools.map((t) => [t.id, t]));
  return (
    <>
      {parts.map((p, i) => {
        if (p.type === 'tool') {
          const tool = byId.get(p.id);
          return tool ? <ToolChip key={p.id} tool={tool} onOpen={onOpen} /> : null;
        }
        return streaming && i === parts.length - 1 ? <StreamingMarkdown key={i} text={p.text} /> : <Markdown key={i} text={p.text} />;
      })}
      {children}
    </>
  );
}

/** A reply's Markdown as Claude wrote it: its text blocks, each apart, without the memory calls between them. */
export function markdownOf(e: Assistant): string {
  return partsOf(e)
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n\n');
}

/** True when two saved entries would look the same: a reloaded conversation does not redraw what it already shows. */
function sameEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.at !== b.at || a.text !== b.text) return false;
  if (a.role === 'user' || b.role === 'user') return (a.role === 'user' ? a.attachments?.length : 0) === (b.role === 'user' ? b.attachments?.length : 0);
  return a.stopped === b.stopped && a.thinking === b.thinking && a.error?.message === b.error?.message && a.usage?.outputTokens === b.usage?.outputTokens && a.tools.length === b.tools.length && a.parts?.length === b.parts?.length;
}

/** One saved message; drawn once, then only again if the message itself or what it offers (Edit, versions…) changes. */
export const Entry = memo(
  function Entry({ entry: e, onOpen, decor }: { entry: TranscriptEntry; onOpen: (path: string) => void; decor?: EntryDecor | undefined }) {
    const { t } = useTranslation('chat');
    const actions = useContext(EntryActionsContext);
    const versions = decor?.version && <VersionSwitch {...decor.version} busy={decor.busy === true} />;
    if (e.role === 'user') {
      const editing = decor?.editing;
      const copy = editing === undefined && e.text ? <CopyButton text={e.text} label={t('transcript.copyMessage')} /> : null;
      const edit =
        editing === undefined && decor?.canEdit ? (
          <button type="button" className="copy-button edit-button" aria-label={t('transcript.editLabel')} title={t('transcript.editTitle')} onClick={() => actions.startEdit(decor.index)}>
            {t('transcript.edit')}
          </button>
        ) : null;
      return (
        <article className="msg user" aria-label={t('transcript.you')} data-entry={decor?.index}>
          <p className="who">{t('transcript.you')}</p>
          {editing !== undefined ? (
            <EditMessage text={editing} attachments={e.attachments} />
          ) : (
            <>
              {e.attachments?.length ? <SentAttachments items={e.attachments} /> : null}
              <div className="body" dir="auto">
                {e.text}
              </div>
            </>
          )}
          {(versions || copy || edit) && (
            <div className="msg-actions">
              {versions}
              {copy}
              {edit}
            </div>
          )}
        </article>
      );
    }
    const regenerate = decor?.regenerate;
    // As in other chat apps, a reply's actions are one row under it: its versions, then Copy and Regenerate, then its cost.
    return (
      <article className="msg assistant" aria-label="Claude">
        <p className="who">Claude</p>
        {e.thinking && <Thinking text={e.thinking} />}
        <ReplyBody parts={partsOf(e)} tools={e.tools as ToolView[]} onOpen={onOpen} />
        {e.stopped && <p className="note">{t('transcript.stopped')}</p>}
        {e.error && <p className="note error">{e.error.message}</p>}
        {(versions || e.text || regenerate !== undefined || e.usage) && (
          <div className="msg-actions">
            {versions}
            {e.text && <CopyButton text={markdownOf(e)} label={t('transcript.copyReply')} />}
            {regenerate !== undefined && (
              <button type="button" className="copy-button" title={t('transcript.regenerateTitle')} onClick={() => actions.regenerate(regenerate)}>
                {t('transcript.regenerate')}
              </button>
            )}
            {/* What the reply cost is there for who looks (hover, focus on its actions, a screen reader), not shouted. */}
            {e.usage && <span className="usage">{usageLine(e.usage)}</span>}
          </div>
        )}
      </article>
    );
  },
  (a, b) => a.onOpen === b.onOpen && sameEntry(a.entry, b.entry) && sameDecor(a.decor, b.decor),
);

/**
 * What a screen reader hears when a reply has finished: that Claude replied, its opening words (Claude's
 * text, kept apart so it can be isolated like the reply itself) and the memory changes it made.
 */
export function replySummary(e: Assistant): { replied: string; opening: string; changes: string } {
  const words = e.text.replace(/[`*_#>|]+/g, ' ').replace(/\s+/g, ' ').trim();
  const opening = words.length > 160 ? `${words.slice(0, 160)}…` : words;
  const changes = e.tools.filter((t) => t.command !== 'view').map((t) => toolLabel(t));
  const t = i18n.getFixedT(null, 'chat');
  return { replied: t('transcript.replied'), opening, changes: changes.length ? t('transcript.memoryChanges', { changes: changes.join('; ') }) : '' };
}
