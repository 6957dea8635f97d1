import type { TFunction } from 'i18next';
import { Trans, useTranslation } from 'react-i18next';
import type { Entry, ReviewEntry } from '../../../electron/shared/ipc-values';
import { formatBytes, formatDateTime } from '../../lib/format';
import { isolatedPath } from './PathText';
import { AppName, writerBadge, type WriterBadge } from './provenance';
import { ReviewWords } from './ReviewCount';
import type { Row } from './tree-rows';

/** A file's size and last change in a few words ("1.2 kB · 24/11/2026, 10:30"), in the window's language; folders have none. */
export function detailsOf(t: TFunction<'memories'>, e: Entry): string | undefined {
  return e.kind === 'file' ? t('tree.details', { size: formatBytes(e.size), date: formatDateTime(e.modified, 'short') }) : undefined;
}

/** A row's tooltip: its path (segments kept in order for right-to-left names), and a file's size and date. */
export function rowTitle(t: TFunction<'memories'>, e: Entry): string {
  const details = detailsOf(t, e);
  const path = isolatedPath(e.path);
  return details ? t('tree.rowTitleDetails', { path, details }) : t('tree.rowTitle', { path });
}

/** A badge's tooltip: who changed the memory last. */
function lastChangedBy(t: TFunction<'memories'>, badge: WriterBadge): string {
  if (badge.tone === 'claude') return t('tree.lastChangedBy.claude');
  if (badge.tone === 'user') return t('tree.lastChangedBy.you');
  return t('tree.lastChangedBy.app', { client: `\u2068${badge.client ?? ''}\u2069` });
}

/** The same, as a sentence the tree item's description says. */
function SpokenLastChangedBy({ badge }: { badge: WriterBadge }) {
  const { t } = useTranslation('memories');
  if (badge.tone === 'claude') return <>{t('tree.spokenLastChangedBy.claude')}</>;
  if (badge.tone === 'user') return <>{t('tree.spokenLastChangedBy.you')}</>;
  return <Trans t={t} i18nKey="tree.spokenLastChangedBy.app" values={{ client: badge.client }} components={[<bdi />]} />;
}

/** Whether a row has words to say beyond its name (a file's details, a change to review): its description. */
export const hasDescription = (e: Entry, unreviewed: ReviewEntry | undefined): boolean => e.kind === 'file' || unreviewed !== undefined;

/**
 * What one tree item shows after its caret: the name (isolated, so an Arabic or Hebrew name reads
 * right to left), the review and writer badges, the details column when asked for, and all of it
 * in words for screen readers as the item's description (`descId`).
 */
export function RowParts({ row, unreviewed, details, descId }: { row: Row; unreviewed: ReviewEntry | undefined; details: boolean; descId: string }) {
  const { t } = useTranslation('memories');
  const e = row.entry;
  const badge = e.kind === 'file' ? writerBadge(e.by) : undefined;
  const info = details ? detailsOf(t, e) : undefined;
  return (
    <>
      <span className="name" dir="auto">
        {row.name}
      </span>
      {unreviewed && (
        <span className="badge review" aria-hidden="true" title={t('tree.reviewBadge.title')}>
          ● {unreviewed.kind === 'new' ? t('tree.reviewBadge.new') : unreviewed.kind === 'conflict' ? t('tree.reviewBadge.conflict') : t('tree.reviewBadge.changed')}
        </span>
      )}
      {badge && (
        <span className={`badge ${badge.tone}`} aria-hidden="true" title={lastChangedBy(t, badge)}>
          {badge.tone === 'claude' ? 'Claude' : badge.tone === 'user' ? t('tree.badgeYou') : <AppName client={badge.short ?? ''} />}
        </span>
      )}
      {info && (
        <span className="meta" aria-hidden="true">
          {info}
        </span>
      )}
      {/* The item's name is the file name; the badges and details are said in words here, as its description. */}
      {hasDescription(e, unreviewed) && (
        <span className="spoken" id={descId} aria-hidden="true">
          {unreviewed && (
            <>
              <ReviewWords entry={unreviewed} form="spoken" />{' '}
            </>
          )}
          {badge && (
            <>
              <SpokenLastChangedBy badge={badge} />{' '}
            </>
          )}
          {e.kind === 'file' && t('tree.spokenDetails', { size: formatBytes(e.size), date: formatDateTime(e.modified) })}
        </span>
      )}
    </>
  );
}
