import type { MemoryDraft } from '../../../electron/shared/drafts';

/** After an unlock: a memory edit the lock kept, offered back until the user restores or discards it. */
export function DraftOffer({ draft, onRestore, onDiscard }: { draft: MemoryDraft; onRestore: () => void; onDiscard: () => void }) {
  return (
    <div role="group" aria-label="Unsaved work" className="banner draft-offer">
      <p>Restore unsaved edit of {draft.path}?</p>
      <p className="hint">It was kept, encrypted, when the vault locked.</p>
      <div className="row">
        <button onClick={onRestore}>Restore</button>
        <button onClick={onDiscard}>Discard</button>
      </div>
    </div>
  );
}
