import type { ConversationSummary, SnippetMarks } from '../../../electron/shared/chat';
import { Marked } from '../../components/Marked';
import type { Answer } from '../../lib/use-live-search';

/** Main answers at most this many (MAX_CONVERSATION_HITS in electron/core/chat/conversations.ts). */
const MAIN_LIMIT = 100;

export type ConversationHit = ConversationSummary & { snippet: string; marks?: SnippetMarks | undefined };

/**
 * The conversations a search found, each with the text around the match
 * marked and the project it is in. "Nothing" is said only about the query in
 * the box: while a newer query is on its way, the last answer stays, dimmed.
 */
export function SearchHits({ query, answer, pending, selected, projectName, onSelect }: { query: string; answer: Answer<ConversationHit> | undefined; pending: boolean; selected: string | undefined; projectName: (c: ConversationSummary) => string | undefined; onSelect: (id: string) => void }) {
  return (
    <ul className={pending ? 'conv-hits pending' : 'conv-hits'} aria-label="Search results" aria-busy={pending}>
      {!answer && <li className="empty">Searching…</li>}
      {answer && !pending && answer.items.length === 0 && <li className="empty">No conversation contains “{query}”.</li>}
      {answer && answer.items.length >= MAIN_LIMIT && <li className="empty">The {MAIN_LIMIT} newest conversations that match; type more to narrow it down.</li>}
      {answer?.items.map((h) => {
        const project = projectName(h);
        return (
          <li key={h.id}>
            <button className="conv hit" aria-current={h.id === selected ? 'true' : undefined} onClick={() => onSelect(h.id)}>
              <span className="hit-title">{h.temporary ? `${h.title} (temporary)` : h.title}</span>
              <span className="snippet">
                <Marked text={h.snippet} marks={h.marks} />
              </span>
              {project !== undefined && <span className="snippet">in {project}</span>}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
