import { useEffect, useState } from 'react';

let say: ((text: string) => void) | undefined;

/**
 * Says a short confirmation ("Copied") to screen readers through one polite
 * live region, so a button inside a scrolling list needs no region of its own.
 * The region is in the page before anything is said, as live regions must be.
 */
export function Announcer() {
  const [text, setText] = useState('');
  useEffect(() => {
    say = (t) => {
      // Emptied first, so the same words said twice in a row are heard twice.
      setText('');
      requestAnimationFrame(() => setText(t));
    };
    return () => void (say = undefined);
  }, []);
  return (
    <p className="sr-only" role="status" aria-live="polite" data-announcer="">
      {text}
    </p>
  );
}

/** Has the Announcer say `text` (nothing happens if none is mounted). */
export function announce(text: string): void {
  say?.(text);
}
