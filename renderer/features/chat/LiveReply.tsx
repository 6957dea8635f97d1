import type { AttachmentRef } from '../../../electron/shared/chat';
import { ApprovalCard } from './ApprovalCard';
import { PendingChips } from './Attachments';
import type { Live } from './live';
import { Thinking } from './Thinking';
import { ReplyBody } from './Transcript';

/** The exchange in progress: the message just sent (unless this is a Continue or a new reply to a message shown above) and Claude's reply as it streams, with its approvals. */
export function LiveReply({ live, sentFiles, onOpen, onDecide }: { live: Live; sentFiles: AttachmentRef[]; onOpen: (path: string) => void; onDecide: (turnId: string, callId: string, allow: boolean) => void }) {
  return (
    <>
      {!live.continued && live.version?.by !== 'regenerate' && (
        <article className="msg user" aria-label="You">
          <p className="who">You</p>
          <PendingChips items={sentFiles} />
          <div className="body">{live.userText}</div>
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
            {live.retrying}
          </p>
        )}
      </article>
    </>
  );
}
