/**
 * The passphrase meter's data. The window does not judge passphrases itself:
 * main runs the real estimate (zxcvbn, electron/core/passphrase-strength.ts)
 * and refuses weak ones on create and change whatever the window shows, so the
 * meter only asks main, a moment after the typing stops.
 */
import { useEffect, useState } from 'react';
import type { CallResult } from '../../electron/shared/ipc';
import { call } from './api';

export type Assessment = CallResult<'passphraseStrength'>;

export type StrengthLevel = 'none' | 'too-weak' | 'weak' | 'strong';

/**
 * The one table the meter is drawn from: each level's word, the colour token
 * its bar and its word are both painted with (defined, light and dark, in
 * components/StrengthMeter.css), and how full the bar is. Word and colour come
 * from the same row, so they cannot disagree.
 */
export const STRENGTH_LEVELS: Readonly<Record<StrengthLevel, { word: string; spoken: string; colour: string; value: number }>> = {
  none: { word: '—', spoken: 'not rated yet', colour: 'var(--strength-none)', value: 0 },
  'too-weak': { word: 'too weak', spoken: 'too weak', colour: 'var(--strength-too-weak)', value: 1 },
  weak: { word: 'weak', spoken: 'weak', colour: 'var(--strength-weak)', value: 2 },
  strong: { word: 'strong', spoken: 'strong', colour: 'var(--strength-strong)', value: 3 },
};
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
  /** The level's word from STRENGTH_LEVELS. */
  label: string;
  /** One line of feedback: what is weak and what to do. */
  hint: string;
}

const DEBOUNCE_MS = 250;

/** The level, word and hint for an answer from main. */
export function describe(a: Assessment | undefined): Strength {
  const level = levelOf(a);
  const label = STRENGTH_LEVELS[level].word;
  if (!a) return { level, label, hint: '' };
  const hint = a.acceptable ? 'OK.' : [a.warning, a.suggestions[0]].filter(Boolean).join(' ');
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
