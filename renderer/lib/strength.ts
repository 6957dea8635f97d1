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

export interface Strength {
  /** undefined while nothing is typed or main has not answered yet. */
  assessment?: Assessment;
  label: 'too weak' | 'weak' | 'strong' | '—';
  /** One line of feedback: what is weak and what to do. */
  hint: string;
}

const DEBOUNCE_MS = 250;

/** The label and hint for an answer from main. */
export function describe(a: Assessment | undefined): Strength {
  if (!a) return { label: '—', hint: '' };
  const label = a.acceptable ? 'strong' : a.score <= 1 ? 'too weak' : 'weak';
  const hint = a.acceptable ? 'OK.' : [a.warning, a.suggestions[0]].filter(Boolean).join(' ');
  return { assessment: a, label, hint };
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
