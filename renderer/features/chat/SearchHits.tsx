import { Trans, useTranslation } from 'react-i18next';
import type { ConversationSummary, SnippetMarks } from '../../../electron/shared/chat';
import { Marked } from '../../components/Marked';
import { formatNumber } from '../../lib/format';
import type { Answer } from '../../lib/use-live-search';
import { TemporaryBadge } from './TemporaryBadge';

/** Main answers at most this many (MAX_CONVERSATION_HITS in electron/core/chat/conversations.ts). */
const MAIN_LIMIT = 100;

export type ConversationHit = ConversationSummary & { snippet: string; marks?: SnippetMarks | undefined };

/**
 * The conversations a search found, each with the text around the match
 * marked and the project it is in. "Nothing" is said only about the query in
 * the box: while a newer query is on its way, the last answer stays, dimmed.
 * Titles, snippets, project names and the query are the user's (or Claude's)
 * words, each isolated so a right-to-left one reads right and keeps its place.
 */
export function SearchHits({ query, answer, pending, selected, projectName, onSelect }: { query: string; answer: Answer<ConversationHit> | undefined; pending: boolean; selected: string | undefined; projectName: (c: ConversationSummary) => string | undefined; onSelect: (id: string) => void }) {
  const { t } = useTranslation('chat');
  return (
    <ul className={pending ? 'conv-hits pending' : 'conv-hits'} aria-label={t('search.results')} aria-busy={pending}>
      {!answer && <li className="empty">{t('search.searching')}</li>}
      {answer && !pending && answer.items.length === 0 && (
        <li className="empty">
          <Trans t={t} i18nKey="search.nothing" values={{ query }} components={[<bdi />]} />
        </li>
      )}
      {answer && answer.items.length >= MAIN_LIMIT && <li className="empty">{t('search.newest', { total: formatNumber(MAIN_LIMIT) })}</li>}
      {answer?.items.map((h) => {
        const project = projectName(h);
        return (
          <li key={h.id}>
            <button className="conv hit" aria-current={h.id === selected ? 'true' : undefined} onClick={() => onSelect(h.id)}>
              <span className="hit-title">
                {h.temporary && <TemporaryBadge />}
                <bdi>{h.title}</bdi>
              </span>
              <span className="snippet" dir="auto">
                <Marked text={h.snippet} marks={h.marks} />
              </span>
              {project !== undefined && (
                <span className="snippet">
                  <Trans t={t} i18nKey="search.inProject" values={{ name: project }} components={[<bdi />]} />
                </span>
              )}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
