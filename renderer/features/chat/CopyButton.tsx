import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { announce } from '../../components/Announcer';
import './CopyButton.css';

/** How long the button says "Copied" before it reads "Copy" again. */
const SHOWN_MS = 1500;

/**
 * Copies a message's text as it was written (a reply's Markdown source, not
 * its HTML) with the renderer's clipboard. Shown on hover or focus of its
 * message, always in the Tab order; "Copied" is said to screen readers too.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation('chat');
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    window.clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
      announce(t('copy.saidCopied'));
    } catch {
      setState('failed');
      announce(t('copy.saidFailed'));
    }
    timer.current = window.setTimeout(() => setState('idle'), SHOWN_MS);
  };
  return (
    <button type="button" className={`copy-button${state === 'idle' ? '' : ' done'}`} aria-label={label} onClick={() => void copy()}>
      {state === 'copied' ? t('copy.copied') : state === 'failed' ? t('copy.notCopied') : t('copy.copy')}
    </button>
  );
}
