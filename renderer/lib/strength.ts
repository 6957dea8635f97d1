/**
 * The passphrase meter's data. The window does not judge passphrases itself:
 * main runs the real estimate (zxcvbn, electron/core/passphrase-strength.ts)
 * and refuses weak ones on create and change whatever the window shows, so the
 * meter only asks main, a moment after the typing stops.
 */
import { useEffect, useState } from 'react';
import type { CallResult } from '../../electron/shared/ipc';
import { call } from './api';
import { i18n } from './i18n';

export type Assessment = CallResult<'passphraseStrength'>;

export type StrengthLevel = 'none' | 'too-weak' | 'weak' | 'strong';

/**
 * The one table the meter is drawn from: each level's word and spoken word (catalog keys), the
 * colour token its bar and its word are both painted with (defined, light and dark, in
 * components/StrengthMeter.css), and how full the bar is. Word and colour come from the same row,
 * so they cannot disagree.
 */
export const STRENGTH_LEVELS = {
  none: { word: 'strength.level.none', spoken: 'strength.level.noneSpoken', colour: 'var(--strength-none)', value: 0 },
  'too-weak': { word: 'strength.level.tooWeak', spoken: 'strength.level.tooWeak', colour: 'var(--strength-too-weak)', value: 1 },
  weak: { word: 'strength.level.weak', spoken: 'strength.level.weak', colour: 'var(--strength-weak)', value: 2 },
  strong: { word: 'strength.level.strong', spoken: 'strength.level.strong', colour: 'var(--strength-strong)', value: 3 },
} as const satisfies Record<StrengthLevel, { word: string; spoken: string; colour: string; value: number }>;
export const STRENGTH_MAX = 3;

/**
 * Main's answer → level: only what main accepts is strong (score 4 alone is not
 * enough, the passphrase must also be long); scores 0–1 are too weak.
 */
export function levelOf(a: Assessment | undefined): StrengthLevel {
  if (!a) return 'none';
  return a.acceptable ? 'strong' : a.score <= 1 ? 'too-weak' : 'weak';
}

export interface Strength {
  /** undefined while nothing is typed or main has not answered yet. */
  assessment?: Assessment;
  level: StrengthLevel;
  /** The level's word from STRENGTH_LEVELS, in the window's language. */
  label: string;
  /** One line of feedback: what is weak and what to do. */
  hint: string;
}

const DEBOUNCE_MS = 250;

/** Main's feedback ids (core/passphrase-strength.ts) → catalog keys; an id not listed is shown in main's English. */
const FEEDBACK_KEYS = {
  'warnings.straightRow': 'strength.warnings.straightRow',
  'warnings.keyPattern': 'strength.warnings.keyPattern',
  'warnings.simpleRepeat': 'strength.warnings.simpleRepeat',
  'warnings.extendedRepeat': 'strength.warnings.extendedRepeat',
  'warnings.sequences': 'strength.warnings.sequences',
  'warnings.recentYears': 'strength.warnings.recentYears',
  'warnings.dates': 'strength.warnings.dates',
  'warnings.topTen': 'strength.warnings.topTen',
  'warnings.topHundred': 'strength.warnings.topHundred',
  'warnings.common': 'strength.warnings.common',
  'warnings.similarToCommon': 'strength.warnings.similarToCommon',
  'warnings.wordByItself': 'strength.warnings.wordByItself',
  'warnings.namesByThemselves': 'strength.warnings.namesByThemselves',
  'warnings.commonNames': 'strength.warnings.commonNames',
  'warnings.userInputs': 'strength.warnings.userInputs',
  'warnings.pwned': 'strength.warnings.pwned',
  'mnemo.tooShort': 'strength.warnings.tooShort',
  'mnemo.guessable': 'strength.warnings.guessable',
  'suggestions.l33t': 'strength.suggestions.l33t',
  'suggestions.reverseWords': 'strength.suggestions.reverseWords',
  'suggestions.allUppercase': 'strength.suggestions.allUppercase',
  'suggestions.capitalization': 'strength.suggestions.capitalization',
  'suggestions.dates': 'strength.suggestions.dates',
  'suggestions.recentYears': 'strength.suggestions.recentYears',
  'suggestions.associatedYears': 'strength.suggestions.associatedYears',
  'suggestions.sequences': 'strength.suggestions.sequences',
  'suggestions.repeated': 'strength.suggestions.repeated',
  'suggestions.longerKeyboardPattern': 'strength.suggestions.longerKeyboardPattern',
  'suggestions.anotherWord': 'strength.suggestions.anotherWord',
  'suggestions.useWords': 'strength.suggestions.useWords',
  'suggestions.noNeed': 'strength.suggestions.noNeed',
  'suggestions.pwned': 'strength.suggestions.pwned',
  'mnemo.useWords': 'strength.suggestions.useUnrelatedWords',
  'mnemo.addWords': 'strength.suggestions.addWords',
} as const;
/** The shortest passphrase main accepts (MIN_PASSPHRASE_LENGTH in electron/core/passphrase-strength.ts), for the "shorter than" warning. */
const MIN_LENGTH = 12;

/** One piece of main's feedback in the window's language: by its id when the catalog has it, else main's English. */
function said(id: string | undefined, english: string): string {
  const key = id !== undefined && Object.hasOwn(FEEDBACK_KEYS, id) ? FEEDBACK_KEYS[id as keyof typeof FEEDBACK_KEYS] : undefined;
  return key ? i18n.t(key, { min: MIN_LENGTH }) : english;
}

/** The level, word and hint for an answer from main, in the window's language. */
export function describe(a: Assessment | undefined): Strength {
  const level = levelOf(a);
  const label = i18n.t(STRENGTH_LEVELS[level].word);
  if (!a) return { level, label, hint: '' };
  const warning = a.warning ? said(a.feedback.warning, a.warning) : '';
  const suggestion = a.suggestions[0] ? said(a.feedback.suggestions[0], a.suggestions[0]) : '';
  const hint = a.acceptable ? '' : [warning, suggestion].filter(Boolean).join(' ');
  return { assessment: a, level, label, hint };
}

/** Asks main how strong `passphrase` is, debounced; stale answers are dropped. */
export function usePassphraseStrength(passphrase: string): Strength {
  const [answer, setAnswer] = useState<{ for: string; assessment: Assessment }>();
  useEffect(() => {
    if (!passphrase) return;
    let current = true;
    const timer = setTimeout(() => {
      call('passphraseStrength', { passphrase })
        .then((assessment) => current && setAnswer({ for: passphrase, assessment }))
        .catch(() => undefined);
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [passphrase]);
  return describe(answer && answer.for === passphrase ? answer.assessment : undefined);
}
