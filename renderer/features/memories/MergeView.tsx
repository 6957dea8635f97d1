import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Choice, Conflict, Merge3 } from '../../../electron/shared/merge3';
import './MergeView.css';

/** Lines shown around each change; longer stretches of merged text are folded to a count. */
const CONTEXT = 2;

/**
 * Both sides changed the same lines: each such change shows the user's text
 * and the stored one side by side, and the user keeps one per change. What
 * merged cleanly is shown around them for context. Escape (or "Back to
 * editing") returns to the editor with the user's text as it was.
 */
export function MergeView({
  merge,
  theirsVersion,
  choices,
  onChoose,
  onSave,
  onCancel,
}: {
  merge: Merge3;
  theirsVersion: number;
  choices: ReadonlyArray<Choice | undefined>;
  onChoose: (index: number, choice: Choice) => void;
  onSave: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('memories');
  const titleId = useId();
  const idBase = useId();
  const box = useRef<HTMLElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  // Start at the heading, so a screen reader reads what happened before the first choice.
  useEffect(() => title.current?.focus(), []);
  const left = Array.from({ length: merge.conflicts }, (_, i) => i).filter((i) => !choices[i]).length;

  const choose = (index: number, choice: Choice) => {
    const first = !choices[index];
    onChoose(index, choice);
    if (!first) return;
    // The first choice in a change moves on to the next change still open, then to Save: the flow goes forward by itself.
    const next = Array.from({ length: merge.conflicts }, (_, i) => i).find((i) => i !== index && !choices[i]);
    requestAnimationFrame(() => {
      const target = next === undefined ? box.current?.querySelector<HTMLElement>('[data-merge-save]') : document.getElementById(`${idBase}-${next}-mine`);
      target?.focus();
    });
  };

  return (
    <section
      ref={box}
      className="merge"
      aria-labelledby={titleId}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.stopPropagation();
        onCancel();
      }}
    >
      <h3 id={titleId} ref={title} tabIndex={-1}>
        {t('merge.title', { version: theirsVersion })}
      </h3>
      <p>{t('merge.intro')}</p>
      <div className="merge-doc">
        {merge.chunks.map((chunk, i) =>
          chunk.kind === 'same' ? (
            <Context key={i} lines={chunk.lines} first={i === 0} last={i === merge.chunks.length - 1} />
          ) : (
            <Region key={i} conflict={chunk} total={merge.conflicts} theirsVersion={theirsVersion} choice={choices[chunk.index]} idBase={idBase} onChoose={choose} />
          ),
        )}
      </div>
      <div className="row merge-actions">
        <button data-merge-save onClick={onSave} disabled={left > 0}>
          {t('merge.save')}
        </button>
        <button onClick={onCancel}>{t('merge.back')}</button>
        <p className="hint" aria-live="polite">
          {left > 0 ? t('merge.left', { left, count: merge.conflicts }) : t('merge.allChosen')}
        </p>
      </div>
    </section>
  );
}

function Region({ conflict, total, theirsVersion, choice, idBase, onChoose }: { conflict: Conflict; total: number; theirsVersion: number; choice: Choice | undefined; idBase: string; onChoose: (index: number, choice: Choice) => void }) {
  const { t } = useTranslation('memories');
  const n = conflict.index + 1;
  const headingId = `${idBase}-${conflict.index}-title`;
  return (
    <div role="group" aria-labelledby={headingId} className="merge-region" data-choice={choice ?? 'open'}>
      <h4 id={headingId}>
        {t('merge.change', { n, total })} <span className="meta">{t('merge.where', { mine: conflict.mineLine, theirs: conflict.theirsLine })}</span>
        {choice && <span className="merge-chosen"> · {choice === 'mine' ? t('merge.keepingYours') : t('merge.takingTheirs')}</span>}
      </h4>
      <div className="merge-sides">
        <Side label={t('merge.yours')} lines={conflict.mine} chosen={choice === 'mine'} />
        <Side label={t('merge.theirs', { version: theirsVersion })} lines={conflict.theirs} chosen={choice === 'theirs'} />
      </div>
      <div className="row">
        <button id={`${idBase}-${conflict.index}-mine`} aria-pressed={choice === 'mine'} onClick={() => onChoose(conflict.index, 'mine')}>
          {t('merge.keepMine', { n })}
        </button>
        <button aria-pressed={choice === 'theirs'} onClick={() => onChoose(conflict.index, 'theirs')}>
          {t('merge.takeTheirs', { n })}
        </button>
      </div>
    </div>
  );
}

function Side({ label, lines, chosen }: { label: string; lines: string[]; chosen: boolean }) {
  const { t } = useTranslation('memories');
  return (
    <figure className={chosen ? 'merge-side chosen' : 'merge-side'}>
      <figcaption>{label}</figcaption>
      {lines.length ? <pre dir="auto">{lines.join('\n')}</pre> : <p className="empty">{t('merge.removed')}</p>}
    </figure>
  );
}

/** Merged lines between changes: all of a short stretch, else the lines next to the changes and a count. */
function Context({ lines, first, last }: { lines: string[]; first: boolean; last: boolean }) {
  const { t } = useTranslation('memories');
  const head = first ? [] : lines.slice(0, CONTEXT);
  const tail = last ? [] : lines.slice(Math.max(head.length, lines.length - CONTEXT));
  const hidden = lines.length - head.length - tail.length;
  if (hidden <= 1) return <pre className="merge-context" dir="auto">{lines.join('\n')}</pre>;
  return (
    <>
      {head.length > 0 && <pre className="merge-context" dir="auto">{head.join('\n')}</pre>}
      <p className="merge-fold meta">{t('merge.folded', { count: hidden })}</p>
      {tail.length > 0 && <pre className="merge-context" dir="auto">{tail.join('\n')}</pre>}
    </>
  );
}
