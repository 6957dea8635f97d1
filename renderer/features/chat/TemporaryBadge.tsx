import { useTranslation } from 'react-i18next';
import './Temporary.css';

/**
 * The mark of a temporary chat in a list, put before its title so an ellipsis
 * never cuts it: an icon (a clock's dashed face) named for screen readers.
 */
export function TemporaryBadge() {
  const { t } = useTranslation('chat');
  return (
    <span className="temporary-badge" role="img" aria-label={t('row.temporaryBadge')} title={t('row.temporaryBadge')}>
      <svg aria-hidden="true" viewBox="0 0 24 24" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M12 3a9 9 0 1 1-6.4 2.6" strokeDasharray="3 3" />
        <path d="M12 7v5l3 2" />
      </svg>
    </span>
  );
}
