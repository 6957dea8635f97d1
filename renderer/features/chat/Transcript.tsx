import type { TranscriptEntry, Usage } from '../../../electron/shared/chat';
import { Markdown } from '../../components/Markdown';
import { ToolChip, type ToolView } from './ToolChip';

export const money = (usd: number | null | undefined) => (usd === null || usd === undefined ? 'price unknown' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);
export const usageLine = (u: Usage) => `${u.model} · ${u.inputTokens.toLocaleString()} in / ${u.outputTokens.toLocaleString()} out · ${money(u.costUSD)}`;

/** The saved part of a conversation. */
export function Transcript({ entries, onOpen, project }: { entries: TranscriptEntry[]; onOpen: (path: string) => void; project?: string | undefined }) {
  return (
    <>
      {entries.map((e, i) =>
        e.role === 'user' ? (
          <article key={i} className="msg user" aria-label="You">
            <p className="who">You</p>
            <div className="body">{e.text}</div>
          </article>
        ) : (
          <article key={i} className="msg assistant" aria-label="Claude">
            <p className="who">Claude</p>
            {e.tools.map((t) => (
              <ToolChip key={t.id} tool={t as ToolView} onOpen={onOpen} project={project} />
            ))}
            <Markdown text={e.text} />
            {e.stopped && <p className="note">Stopped.</p>}
            {e.error && <p className="note error">{e.error.message}</p>}
            {e.usage && <p className="usage">{usageLine(e.usage)}</p>}
          </article>
        ),
      )}
    </>
  );
}
