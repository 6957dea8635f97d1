import { useEffect, useRef } from 'react';
import { renderMarkdown } from '../lib/markdown';

/** Sanitised Markdown with a copy button on each code block; links open outside the app (main decides which). */
export function Markdown({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    for (const pre of Array.from(root.querySelectorAll('pre'))) {
      if (pre.querySelector('.copy')) continue;
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
        if (!a) return;
        e.preventDefault();
        const href = a.getAttribute('href');
        if (href && /^https?:/.test(href)) window.open(href, '_blank', 'noopener');
      }}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
    />
  );
}
