/** The passphrase meter's one table: every answer from main lands on a level whose word and colour go together. */
import { beforeAll, expect, it } from 'vitest';
import { i18n } from '../../../renderer/lib/i18n';
import { describe as describeStrength, levelOf, STRENGTH_LEVELS, STRENGTH_MAX, type Assessment } from '../../../renderer/lib/strength';
import { startTestI18n } from '../i18n/window-i18n';

const answer = (score: Assessment['score'], acceptable: boolean, feedback: Assessment['feedback'] = { suggestions: [] }): Assessment => ({
  score,
  acceptable,
  warning: acceptable ? '' : 'Too common.',
  suggestions: acceptable ? [] : ['Add a word.'],
  feedback,
});

beforeAll(() => startTestI18n('en'));

it('nothing typed (or not yet rated) is the empty level: no fill, a dash, the muted colour', () => {
  expect(levelOf(undefined)).toBe('none');
  expect(STRENGTH_LEVELS.none).toMatchObject({ value: 0, colour: 'var(--strength-none)' });
  expect(i18n.t(STRENGTH_LEVELS.none.word)).toBe('—');
  expect(describeStrength(undefined)).toEqual({ level: 'none', label: '—', hint: '' });
});

it('only what main accepts is strong; scores 0–1 are too weak, the rest weak (score 4 alone is not enough)', () => {
  const levels = ([0, 1, 2, 3, 4] as const).map((s) => levelOf(answer(s, false)));
  expect(levels).toEqual(['too-weak', 'too-weak', 'weak', 'weak', 'weak']);
  expect(levelOf(answer(4, true))).toBe('strong');
});

it('each level has its own word and its own colour token, and the bar fills further as the level rises', () => {
  const rows = Object.values(STRENGTH_LEVELS);
  expect(new Set(rows.map((r) => r.word)).size).toBe(rows.length);
  expect(new Set(rows.map((r) => r.colour)).size).toBe(rows.length);
  for (const r of rows) expect(r.colour).toMatch(/^var\(--strength-[a-z-]+\)$/);
  expect([STRENGTH_LEVELS.none, STRENGTH_LEVELS['too-weak'], STRENGTH_LEVELS.weak, STRENGTH_LEVELS.strong].map((r) => r.value)).toEqual([0, 1, 2, 3]);
  expect(STRENGTH_LEVELS.strong.value).toBe(STRENGTH_MAX);
});

it('the word shown is always the word of the level the colour comes from', () => {
  for (const score of [0, 1, 2, 3, 4] as const) {
    for (const acceptable of score === 4 ? [false, true] : [false]) {
      const s = describeStrength(answer(score, acceptable));
      expect(s.label).toBe(i18n.t(STRENGTH_LEVELS[s.level].word));
      expect(s.level).toBe(levelOf(s.assessment));
    }
  }
  expect(describeStrength(answer(1, false)).hint).toBe('Too common. Add a word.');
  // A strong passphrase needs no advice: the meter says "Strength: strong" and nothing more.
  expect(describeStrength(answer(4, true)).hint).toBe('');
});

it("main's feedback is said by its id in the window's language, and an id the catalog lacks in main's English", async () => {
  const known = answer(1, false, { warning: 'warnings.common', suggestions: ['mnemo.useWords'] });
  expect(describeStrength(known).hint).toBe('This is a commonly used password. Use four or more unrelated words.');
  expect(describeStrength(answer(1, false, { warning: 'warnings.someday', suggestions: [''] })).hint).toBe('Too common. Add a word.');
  await startTestI18n('en-XA');
  expect(describeStrength(known).hint).toMatch(/^⟦Ţĥîš îš á çöɱɱöñļý ûšéð þáššŵöŕð\.~+⟧ ⟦Ûšé ƒöûŕ/);
  await startTestI18n('en');
});
