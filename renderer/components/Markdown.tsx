import { useLayoutEffect, useRef } from 'react';
import { openLink } from '../lib/links';
import { renderMarkdownTrusted } from '../lib/markdown';

/** Sanitised Markdown with a copy button on each code block; links open outside the app (main decides which). */
export function Markdown({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const root = ref.current;
    if (!root) return;
    // Set here rather than through React so the Trusted Types value reaches the sink as it is.
    root.innerHTML = renderMarkdownTrusted(text);
    for (const pre of Array.from(root.querySelectorAll('pre'))) {
      const button = document.createElement('button');
      button.className = 'copy';
      button.type = 'button';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy code');
      button.addEventListener('click', () => {
        void navigator.clipboard.writeText(pre.querySelector('code')?.textContent ?? '').then(() => (button.textContent = 'Copied'));
      });
      pre.appendChild(button);
    }
  }, [text]);
  return (
    <div
      ref={ref}
      className="markdown"
      onClick={(e) => {
        const a = (e.target as HTMLElement).closest('a');
        if (!a || !e.currentTarget.contains(a)) return;
        e.preventDefault();
        openLink(a.getAttribute('href') ?? '');
      }}
    />
  );
}
