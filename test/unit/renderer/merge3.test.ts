/** The editor's three-way merge: what both sides changed is kept, only true overlaps are asked about. */
import { expect, it } from 'vitest';
import { DEEP, prng, randomSeed } from '../../deep';
import { merge3, mergedText, type Conflict } from '../../../electron/shared/merge3';

const base = ['# Plan', 'one', 'two', 'three', 'four', 'five'].join('\n');
const conflictsOf = (m: ReturnType<typeof merge3>) => m.chunks.filter((c): c is Conflict => c.kind === 'conflict');

it('changes on different lines from both sides are all kept, with no conflict', () => {
  const mine = base.replace('one', 'one (mine)');
  const theirs = base.replace('four', 'four (theirs)');
  const m = merge3(base, mine, theirs);
  expect(m.conflicts).toBe(0);
  expect(mergedText(m)).toBe(['# Plan', 'one (mine)', 'two', 'three', 'four (theirs)', 'five'].join('\n'));
});

it('lines added at both ends by the two sides are both kept', () => {
  const m = merge3(base, `Intro\n${base}`, `${base}\nsix`);
  expect(m.conflicts).toBe(0);
  expect(mergedText(m)).toBe(`Intro\n${base}\nsix`);
});

it('both sides changing the same line is one conflict holding both texts and the base, settled per choice', () => {
  const m = merge3(base, base.replace('two', 'two (mine)'), base.replace('two', 'two (theirs)'));
  expect(m.conflicts).toBe(1);
  const [c] = conflictsOf(m);
  expect(c).toMatchObject({ index: 0, base: ['two'], mine: ['two (mine)'], theirs: ['two (theirs)'], mineLine: 3, theirsLine: 3 });
  expect(mergedText(m)).toBeUndefined();
  expect(mergedText(m, ['mine'])).toBe(base.replace('two', 'two (mine)'));
  expect(mergedText(m, ['theirs'])).toBe(base.replace('two', 'two (theirs)'));
});

it('several overlaps are separate regions, each settled on its own, with the clean changes between kept', () => {
  const mine = base.replace('one', 'ONE-m').replace('three', 'three (both fine)').replace('five', 'FIVE-m');
  const theirs = base.replace('one', 'ONE-t').replace('five', 'FIVE-t');
  const m = merge3(base, mine, theirs);
  expect(m.conflicts).toBe(2);
  expect(conflictsOf(m).map((c) => [c.index, c.mine, c.theirs])).toEqual([
    [0, ['ONE-m'], ['ONE-t']],
    [1, ['FIVE-m'], ['FIVE-t']],
  ]);
  expect(mergedText(m, ['theirs', 'mine'])).toBe(['# Plan', 'ONE-t', 'two', 'three (both fine)', 'four', 'FIVE-m'].join('\n'));
  expect(mergedText(m, ['theirs'])).toBeUndefined();
});

it('the same change made on both sides is not a conflict', () => {
  const same = base.replace('three', 'three, agreed');
  const m = merge3(base, same, same);
  expect(m.conflicts).toBe(0);
  expect(mergedText(m)).toBe(same);
});

it('a line deleted on one side and changed on the other is a conflict; taking the deletion removes it', () => {
  const m = merge3(base, base.replace('two\n', ''), base.replace('two', 'two (kept)'));
  expect(conflictsOf(m)).toMatchObject([{ mine: [], theirs: ['two (kept)'] }]);
  expect(mergedText(m, ['mine'])).toBe(base.replace('two\n', ''));
});

it('CRLF text merges line by line and keeps CRLF; a side converting the endings wins without conflicts', () => {
  const crlf = (s: string) => s.replace(/\n/g, '\r\n');
  const m = merge3(crlf(base), crlf(base.replace('one', 'one (mine)')), crlf(base.replace('five', 'five (theirs)')));
  expect(m.conflicts).toBe(0);
  expect(mergedText(m)).toBe(crlf(base.replace('one', 'one (mine)').replace('five', 'five (theirs)')));
  // Theirs was saved with CRLF everywhere (an editor on another system), mine changed one line: one change, no conflict.
  const converted = merge3(base, base.replace('two', 'two (mine)'), crlf(base));
  expect(converted.conflicts).toBe(0);
  expect(mergedText(converted)).toBe(crlf(base.replace('two', 'two (mine)')));
});

it('a final newline added on one side is kept, and does not clash with a change to the last line', () => {
  const m = merge3(base, base.replace('five', 'five (mine)'), `${base}\n`);
  expect(m.conflicts).toBe(0);
  expect(mergedText(m)).toBe(`${base.replace('five', 'five (mine)')}\n`);
  const removed = merge3(`${base}\n`, base, `${base.replace('# Plan', '# Plan!')}\n`);
  expect(mergedText(removed)).toBe(base.replace('# Plan', '# Plan!'));
});

it('empty texts merge: a first line written on one side, or both sides emptied', () => {
  expect(mergedText(merge3('', 'mine', ''))).toBe('mine');
  expect(mergedText(merge3('', '', 'theirs\n'))).toBe('theirs\n');
  expect(mergedText(merge3(base, '', ''))).toBe('');
  expect(merge3('', 'mine', 'theirs').conflicts).toBe(1);
  expect(mergedText(merge3('\n\n', '\n\n', 'x\n\n'))).toBe('x\n\n');
});

it('lines that look like object keys (constructor, __proto__) merge as text', () => {
  const b = 'constructor\n__proto__\ntoString';
  const m = merge3(b, b.replace('constructor', 'ctor'), b.replace('toString', 'str'));
  expect(mergedText(m)).toBe('ctor\n__proto__\nstr');
});

/** Random base texts with scattered edits on each side, never on a line next to one the other side changed. */
function* disjointEdits(what: string, vocabulary: (round: number, i: number, pick: <T>(xs: readonly T[]) => T) => string) {
  const seed = randomSeed(what);
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  for (let round = 0; round < (DEEP ? 2000 : 100); round++) {
    const n = 1 + Math.floor(rand() * 40);
    const base = Array.from({ length: n }, (_, i) => vocabulary(round, i, pick));
    const mine = [...base];
    const theirs = [...base];
    const owner = new Array<'mine' | 'theirs' | undefined>(n);
    for (let i = 0; i < n; i++) {
      if (rand() > 0.25) continue;
      const side = rand() < 0.5 ? 'mine' : 'theirs';
      // Neighbouring lines count as overlapping (as in git), so a line next to the other side's change is left alone.
      if ([i - 1, i, i + 1].some((j) => owner[j] !== undefined && owner[j] !== side)) continue;
      owner[i] = side;
      (side === 'mine' ? mine : theirs)[i] = `${side} ${round}.${i}`;
    }
    const expected = base.map((l, i) => (owner[i] === 'mine' ? mine[i] : owner[i] === 'theirs' ? theirs[i] : l));
    yield { label: `seed ${seed}, round ${round}`, merge: merge3(base.join('\n'), mine.join('\n'), theirs.join('\n')), expected: expected.join('\n') };
  }
}

it('random edits to distinct lines, never next to the other side’s, always merge with no conflict to both edits applied', () => {
  for (const { label, merge, expected } of disjointEdits('merge3 distinct lines', (round, i) => `line ${round}.${i}`)) {
    expect(merge.conflicts, label).toBe(0);
    expect(mergedText(merge), label).toBe(expected);
  }
});

it('among repeated lines (blank lines, the same bullet) a clean merge keeps every line either side wrote, once and in order', () => {
  // Which copy of a repeated line an edit replaced is ambiguous to a line diff (an LCS may see "replace the first
  // '- item'" as "insert, then drop a later '- item'"), so the run of copies can come out one longer or shorter.
  // What each side wrote is never lost or doubled.
  const vocabulary = ['', '', '- item', '- item', '# Heading', 'text', 'more text', '```', 'end'];
  let clean = 0;
  for (const { label, merge, expected } of disjointEdits('merge3 repeated lines', (_r, _i, pick) => pick(vocabulary))) {
    if (merge.conflicts > 0) continue;
    clean++;
    const written = (t: string) => t.split('\n').filter((l) => /^(mine|theirs) /.test(l));
    expect(written(mergedText(merge)!), label).toEqual(written(expected));
    expect(mergedText(merge)!.split('\n').every((l) => /^(mine|theirs) /.test(l) || vocabulary.includes(l)), label).toBe(true);
  }
  expect(clean).toBeGreaterThan(0);
});
