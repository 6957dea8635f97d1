import { Marked } from '../../components/Marked';
import type { Answer } from '../../lib/use-live-search';

type Hit = { path: string; line: number; snippet: string; marks?: Array<[number, number]> | undefined };

/**
 * The memories a search found: path and line, and the clean text around the
 * match with the match marked. "No memory contains …" is said only of the
 * query in the box, once its own answer is in, never of an earlier one.
 */
export function MemoryHits({ query, answer, pending, onOpen, onBack }: { query: string; answer: Answer<Hit> | undefined; pending: boolean; onOpen: (path: string) => boolean; onBack: () => void }) {
  return (
    <ul className="hits" aria-label="Search results" aria-busy={pending}>
      {!answer && <li className="empty">Searching…</li>}
      {answer && !pending && answer.items.length === 0 && <li>No memory contains “{query}”.</li>}
      {answer?.items.map((h) => (
        <li key={`${h.path}:${h.line}`}>
          <button onClick={() => onOpen(h.path)}>
            {h.path}
            {h.line ? `:${h.line}` : ''}{' '}
            <span className="snippet">
              <Marked text={h.snippet} marks={h.marks} />
            </span>
          </button>
        </li>
      ))}
      <li>
        <button onClick={onBack}>Back to all memories</button>
      </li>
    </ul>
  );
}
