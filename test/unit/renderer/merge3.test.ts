/** The editor's three-way merge: what both sides changed is kept, only true overlaps are asked about. */
import { expect, it } from 'vitest';
import { merge3, mergedText, type Conflict } from '../../../renderer/features/memories/merge3';

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
