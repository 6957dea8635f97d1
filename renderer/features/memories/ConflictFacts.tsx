import { useTranslation } from 'react-i18next';
import type { ReviewEntry } from '../../../electron/shared/ipc-values';

type Conflict = NonNullable<ReviewEntry['conflict']>;

/** `items` as the language lists them ("A, B and C"), each item made by `render` (names isolated for right-to-left scripts). */
function Listed({ items, lang, render }: { items: string[]; lang: string; render: (item: string) => React.ReactNode }) {
  const parts = new Intl.ListFormat(lang, { type: 'conjunction' }).formatToParts(items);
  let i = 0;
  return <>{parts.map((p, k) => (p.type === 'element' ? <span key={k}>{render(items[i++] ?? p.value)}</span> : p.value))}</>;
}

/**
 * What a conflict between computers involved: the version kept on every computer, the versions set aside (or the one
 * the delete removed), and the computers by the names they were given (written by another computer: shown as text,
 * isolated).
 */
export function ConflictFacts({ entry, conflict }: { entry: ReviewEntry; conflict: Conflict }) {
  const { t, i18n } = useTranslation('memories');
  const count = conflict.versions.length;
  const versions = new Intl.ListFormat(i18n.language, { type: 'conjunction' }).format(conflict.versions.map(String));
  const what = count === 0 ? 'review.conflict.otherGone' : conflict.what === 'delete' ? 'review.conflict.deleted' : 'review.conflict.setAside';
  return (
    <>
      <p>{t(what, { count, versions, version: entry.version })}</p>
      {conflict.computers.length > 0 && (
        <p>
          {t('review.conflict.computers')}{' '}
          <Listed items={conflict.computers} lang={i18n.language} render={(name) => <bdi dir="auto">{name}</bdi>} />
        </p>
      )}
    </>
  );
}
