import { diffLines } from 'diff';
import { useTranslation } from 'react-i18next';

interface Line {
  kind: 'added' | 'removed' | 'same';
  /** Line numbers in the old and the new text (absent where the line is not in that text). */
  old?: number;
  new?: number;
  text: string;
}

/** Splits a line diff into numbered lines, so markers and numbers can sit in their own columns. */
function lines(before: string, after: string): Line[] {
  const out: Line[] = [];
  let [o, n] = [1, 1];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of part.value.replace(/\n$/, '').split('\n')) {
      if (kind === 'added') out.push({ kind, new: n++, text });
      else if (kind === 'removed') out.push({ kind, old: o++, text });
      else out.push({ kind, old: o++, new: n++, text });
    }
  }
  return out;
}

const MARK = { added: '+', removed: '−', same: '' } as const;
const SPOKEN = { added: 'diff.added', removed: 'diff.removed' } as const;

/**
 * A line diff of two texts drawn with gutters: old and new line numbers and a
 * marker column beside each line, so a Markdown list dash is never confused
 * with a diff marker. The marker is also said to screen readers ("added",
 * "removed"); the gutters are hidden from them.
 */
export function Diff({ before, after, label }: { before: string; after: string; label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="diff" role="group" aria-label={label ?? t('diff.label')}>
      {lines(before, after).map((l, i) => (
        <div key={i} className={`line ${l.kind}`}>
          <span className="gutter" aria-hidden="true">
            {l.old ?? ''}
          </span>
          <span className="gutter" aria-hidden="true">
            {l.new ?? ''}
          </span>
          <span className="mark" aria-hidden="true">
            {MARK[l.kind]}
          </span>
          {l.kind !== 'same' && <span className="spoken">{t(SPOKEN[l.kind])}: </span>}
          {/* The memory's own text: isolated, so a right-to-left line keeps its order. */}
          <span className="text" dir="auto">
            {l.text}
          </span>
        </div>
      ))}
    </div>
  );
}
