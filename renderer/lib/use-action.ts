/**
 * One form's submit: a check before main is asked, busy while it runs, and
 * main's error shown as the message — what every passphrase form here does.
 */
import { useState } from 'react';
import { messageOf } from './api';

export function useAction(): {
  busy: boolean;
  error: string | undefined;
  setError: (message: string | undefined) => void;
  /** Shows `problem` if there is one; otherwise runs `fn`, showing any error it throws. */
  run: (problem: string | undefined, fn: () => Promise<void>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (problem: string | undefined, fn: () => Promise<void>) => {
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
