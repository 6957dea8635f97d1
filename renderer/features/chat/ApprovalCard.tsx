import { useEffect, useRef, type ReactNode } from 'react';
import type { ChatEvent } from '../../../electron/shared/chat';
import { Diff } from '../../components/Diff';

type Approval = Extract<ChatEvent, { type: 'approval' }>;

/**
 * A held memory change and what it does: the diff of an edit, the old and new path of a rename, what a delete
 * removes. `who` asks (Claude in the chat; another app's name for a change asked over the local channel), and
 * `children` add what else the user should know (which project, until when it waits).
 */
export function ApprovalCard({ approval: a, onDecide, who = 'Claude', children }: { approval: Approval; onDecide: (allow: boolean) => void; who?: string; children?: ReactNode }) {
  const removes = a.change?.removes;
  const card = useRef<HTMLDivElement>(null);
  // A held change waits for the user: bring focus (and a screen reader) to it, so it is decided by keyboard without hunting.
  useEffect(() => card.current?.focus(), []);
  return (
    <div className="approval" role="group" aria-label={who === 'Claude' ? `Approve ${a.command} ${a.path}` : `Approve ${a.command} ${a.path} for ${who}`} ref={card} tabIndex={-1}>
      {a.command === 'rename' ? (
        <p>
          <bdi>{who}</bdi> wants to rename <code>{a.path}</code> to <code>{a.newPath ?? '?'}</code>
        </p>
      ) : a.command === 'delete' ? (
        <p>
          <bdi>{who}</bdi> wants to delete <code>{a.path}</code>
          {removes && removes.files.length !== 1 ? ` and the ${removes.files.length} files in it` : null}
        </p>
      ) : (
        <p>
          <bdi>{who}</bdi> wants to {a.command === 'create' ? 'create' : 'change'} <code>{a.path}</code>
        </p>
      )}
      {children}
      {a.change?.diff ? (
        <Diff before={a.change.diff.before} after={a.change.diff.after} label={`What ${a.command} changes in ${a.path}`} />
      ) : (
        a.preview !== undefined && <pre className="preview">{a.preview}</pre>
      )}
      {removes && (removes.text !== undefined ? (
        <pre className="preview" aria-label={`Text deleted from ${a.path}`}>{removes.text}</pre>
      ) : (
        removes.files.length > 0 && (
          <ul aria-label={`Files deleted under ${a.path}`}>
            {removes.files.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        )
      ))}
      <button onClick={() => onDecide(true)}>Approve</button>
      <button onClick={() => onDecide(false)}>Deny</button>
    </div>
  );
}
