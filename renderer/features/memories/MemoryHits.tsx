import { Trans, useTranslation } from 'react-i18next';
import { Marked } from '../../components/Marked';
import type { Answer } from '../../lib/use-live-search';
import { PathText } from './PathText';

type Hit = { path: string; line: number; snippet: string; marks?: Array<[number, number]> | undefined };

/**
 * The memories a search found: path and line, and the clean text around the
 * match with the match marked. "No memory contains …" is said only of the
 * query in the box, once its own answer is in, never of an earlier one. The
 * query, the path's segments and the snippet are isolated, so right-to-left
 * text reads right and keeps its place.
 */
export function MemoryHits({ query, answer, pending, onOpen, onBack }: { query: string; answer: Answer<Hit> | undefined; pending: boolean; onOpen: (path: string) => boolean; onBack: () => void }) {
  const { t } = useTranslation('memories');
  return (
    <ul className="hits" aria-label={t('search.results')} aria-busy={pending}>
      {!answer && <li className="empty">{t('search.searching')}</li>}
      {answer && !pending && answer.items.length === 0 && (
        <li>
          <Trans t={t} i18nKey="search.noMatch" values={{ query }} components={[<bdi />]} />
        </li>
      )}
      {answer?.items.map((h) => (
        <li key={`${h.path}:${h.line}`}>
          <button onClick={() => onOpen(h.path)}>
            <PathText path={h.path} suffix={h.line ? `:${h.line}` : ''} />{' '}
            <span className="snippet" dir="auto">
              <Marked text={h.snippet} marks={h.marks} />
            </span>
          </button>
        </li>
      ))}
      <li>
        <button onClick={onBack}>{t('search.backToAll')}</button>
      </li>
    </ul>
  );
}
