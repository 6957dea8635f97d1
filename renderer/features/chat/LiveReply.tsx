import { useTranslation } from 'react-i18next';
import type { AttachmentRef } from '../../../electron/shared/chat';
import { ApprovalCard } from './ApprovalCard';
import { PendingChips } from './Attachments';
import type { Live } from './live';
import { Thinking } from './Thinking';
import { ReplyBody } from './Transcript';
import { formatNumber } from '../../lib/format';

/** The exchange in progress: the message just sent (unless this is a Continue or a new reply to a message shown above) and Claude's reply as it streams, with its approvals. */
export function LiveReply({ live, sentFiles, onOpen, onDecide }: { live: Live; sentFiles: AttachmentRef[]; onOpen: (path: string) => void; onDecide: (turnId: string, callId: string, allow: boolean) => void }) {
  const { t } = useTranslation('chat');
  return (
    <>
      {!live.continued && live.version?.by !== 'regenerate' && (
        <article className="msg user" aria-label={t('transcript.you')}>
          <p className="who">{t('transcript.you')}</p>
          <PendingChips items={sentFiles} />
          <div className="body" dir="auto">
            {live.userText}
          </div>
        </article>
      )}
      <article className="msg assistant streaming" aria-label="Claude" aria-busy="true">
        <p className="who">Claude</p>
        {live.thinking && <Thinking text={live.thinking} />}
        <ReplyBody parts={live.parts} tools={live.tools} streaming onOpen={onOpen}>
          {live.approvals.map((a) => (
            <ApprovalCard key={a.id} approval={a} onDecide={(allow) => onDecide(live.turnId, a.id, allow)} />
          ))}
        </ReplyBody>
        {live.retrying && (
          <p className="note" role="status">
            {t(live.retrying.rateLimited ? 'transcript.rateLimited' : 'transcript.busy', { seconds: formatNumber(live.retrying.inSeconds) })}
          </p>
        )}
      </article>
    </>
  );
}
