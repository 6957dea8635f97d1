import { diffLines, type Change } from 'diff';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Unchanged lines kept on each side of a change; longer unchanged stretches are left out with a note. */
const CONTEXT = 3;
/** Rows drawn at first and per "Show more": a long memory must not become tens of thousands of nodes. */
const PAGE = 400;
/** Past this many changed lines the texts are shown as all removed, then all added, instead of searching for a shorter diff. */
const MAX_EDIT = 2_000;

// Controls, bidi and zero-width characters and the BOM (the tab stays): they are invisible or reorder what is drawn, so
// memory text holding them could read in the diff as something other than what Claude stored (and will read back).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;

/** The text with each hidden character written as its code point, one text node whatever it holds. */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

type Row = { kind: 'added' | 'removed' | 'same'; old?: number; new?: number; text: string } | { kind: 'skip'; count: number };

function parts(before: string, after: string): Change[] {
  const found = diffLines(before, after, { maxEditLength: MAX_EDIT });
  if (found) return found;
  const out: Change[] = [];
  if (before) out.push({ value: before, removed: true, added: false, count: 0 });
  if (after) out.push({ value: after, added: true, removed: false, count: 0 });
  return out;
}

/** Numbered rows of the diff, unchanged stretches cut to CONTEXT lines beside each change (all kept when nothing changed). */
function rows(before: string, after: string): Row[] {
  const all: Array<Extract<Row, { text: string }>> = [];
  let [o, n] = [1, 1];
  for (const part of parts(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of part.value.replace(/\n$/, '').split('\n')) {
      if (kind === 'added') all.push({ kind, new: n++, text });
      else if (kind === 'removed') all.push({ kind, old: o++, text });
      else all.push({ kind, old: o++, new: n++, text });
    }
  }
  if (all.every((r) => r.kind === 'same')) return all;
  const out: Row[] = [];
  for (let i = 0; i < all.length; ) {
    if (all[i]!.kind !== 'same') {
      out.push(all[i++]!);
      continue;
    }
    let end = i;
    while (end < all.length && all[end]!.kind === 'same') end++;
    const keepHead = i === 0 ? 0 : CONTEXT;
    const keepTail = end === all.length ? 0 : CONTEXT;
    if (end - i > keepHead + keepTail + 1) {
      out.push(...all.slice(i, i + keepHead), { kind: 'skip', count: end - i - keepHead - keepTail }, ...all.slice(end - keepTail, end));
    } else {
      out.push(...all.slice(i, end));
    }
    i = end;
  }
  return out;
}

const MARK = { added: '+', removed: '−', same: '' } as const;
const SPOKEN = { added: 'diff.added', removed: 'diff.removed' } as const;

/**
 * The diff the review inbox shows: the same gutters and markers as the
 * history's diff, but only the changed lines with a little context (the whole
 * text is one "Open in editor" away), drawn a page of rows at a time, and with
 * hidden characters written out. Give it a `key` per change so paging restarts.
 */
export function ReviewDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const { t } = useTranslation('memories');
  const { t: tc } = useTranslation();
  const all = useMemo(() => rows(before, after), [before, after]);
  const [limit, setLimit] = useState(PAGE);
  const rest = all.length - limit;
  return (
    <div className="diff" role="group" aria-label={label}>
      {all.slice(0, limit).map((r, i) =>
        r.kind === 'skip' ? (
          <div key={i} className="line skip">
            <span className="gutter" aria-hidden="true" />
            <span className="gutter" aria-hidden="true" />
            <span className="mark" aria-hidden="true" />
            <span className="note">{t('review.unchanged', { count: r.count })}</span>
          </div>
        ) : (
          <div key={i} className={`line ${r.kind}`}>
            <span className="gutter" aria-hidden="true">
              {r.old ?? ''}
            </span>
            <span className="gutter" aria-hidden="true">
              {r.new ?? ''}
            </span>
            <span className="mark" aria-hidden="true">
              {MARK[r.kind]}
            </span>
            {r.kind !== 'same' && <span className="spoken">{tc(SPOKEN[r.kind])}: </span>}
            {/* The memory's own text: isolated, so a right-to-left line keeps its order. */}
            <span className="text" dir="auto">
              {visible(r.text)}
            </span>
          </div>
        ),
      )}
      {rest > 0 && (
        <button className="more" onClick={() => setLimit((l) => l + PAGE)}>
          {t('review.more', { count: Math.min(PAGE, rest), rest })}
        </button>
      )}
    </div>
  );
}
