import { Trans, useTranslation } from 'react-i18next';
import type { MemoryDraft } from '../../../electron/shared/drafts';

/** After an unlock: a memory edit the lock kept, offered back until the user restores or discards it. */
export function DraftOffer({ draft, onRestore, onDiscard }: { draft: MemoryDraft; onRestore: () => void; onDiscard: () => void }) {
  const { t } = useTranslation('unlock');
  return (
    <div role="group" aria-label={t('draft.label')} className="banner draft-offer">
      {/* The path is the user's: isolated in the sentence, so a right-to-left name keeps its place. */}
      <p>
        <Trans t={t} i18nKey="draft.restoreQuestion" values={{ path: draft.path }} components={[<bdi />]} />
      </p>
      <p className="hint">{t('draft.kept')}</p>
      <div className="row">
        <button onClick={onRestore}>{t('draft.restore')}</button>
        <button onClick={onDiscard}>{t('draft.discard')}</button>
      </div>
    </div>
  );
}
