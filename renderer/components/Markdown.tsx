import { memo, useLayoutEffect, useRef, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../lib/i18n';
import { openLink } from '../lib/links';
import { closeBlocks, renderMarkdownTrusted } from '../lib/markdown';

/** Gives each code block its language label and a copy button, built as DOM nodes with text only. */
function decorate(root: HTMLElement): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    // Only our highlighter sets classes (the sanitiser drops every other), so this is a language highlight.js knows.
    const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1];
    const bar = document.createElement('div');
    bar.className = 'code-bar';
    const label = document.createElement('span');
    label.className = 'code-lang';
    label.textContent = lang ?? i18n.t('code.plainText');
    const button = document.createElement('button');
    button.className = 'copy';
    button.type = 'button';
    button.textContent = i18n.t('code.copy');
    button.setAttribute('aria-label', i18n.t('code.copyLabel'));
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(code?.textContent ?? '').then(() => (button.textContent = i18n.t('code.copied')));
    });
    bar.append(label, button);
    pre.prepend(bar);
  }
  // Wide tables scroll inside the reply instead of widening it.
  for (const table of Array.from(root.querySelectorAll('table'))) {
    if (table.parentElement?.classList.contains('table-wrap')) continue;
    const wrap = document.createElement('div');
    wrap.className = 'table-wrap';
    table.replaceWith(wrap);
    wrap.appendChild(table);
  }
}

/** One piece of Markdown set as HTML; rendered again only when its text changes. */
const Html = memo(function Html({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // Drawn again when the language changes, so the code bars' words follow it.
  const { i18n: live } = useTranslation();
  const language = live.language;
  useLayoutEffect(() => {
    const root = ref.current;
    if (!root) return;
    // Set here rather than through React so the Trusted Types value reaches the sink as it is.
    root.innerHTML = renderMarkdownTrusted(text);
    decorate(root);
  }, [text, language]);
  // Claude's (or a memory's) own text: its direction comes from what it says.
  return <div ref={ref} className="md-block" dir="auto" />;
});

/** Links open outside the app (main decides which). */
function onLinkClick(e: MouseEvent<HTMLDivElement>): void {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || !e.currentTarget.contains(a)) return;
  e.preventDefault();
  openLink(a.getAttribute('href') ?? '');
}

/** Sanitised Markdown with a language label and copy button on each code block. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown" onClick={onLinkClick}>
      <Html text={text} />
    </div>
  );
});

/**
 * Markdown that is still arriving: blocks already closed are rendered once and
 * kept; only the open (last) block is parsed again as text is added to it.
 * Blocks are parsed apart, so a reference-style link whose definition is in
 * another block shows as text until the reply is saved and drawn whole.
 */
export function StreamingMarkdown({ text }: { text: string }) {
  const state = useRef({ source: '', closed: [] as string[], openStart: 0 });
  const s = state.current;
  if (!text.startsWith(s.source)) Object.assign(s, { closed: [], openStart: 0 });
  if (text !== s.source) {
    const next = closeBlocks(text, s.openStart);
    if (next.closed.length) s.closed = [...s.closed, ...next.closed];
    s.openStart = next.openStart;
    s.source = text;
  }
  const open = text.slice(s.openStart);
  return (
    <div className="markdown" onClick={onLinkClick}>
      {s.closed.map((block, i) => (
        <Html key={i} text={block} />
      ))}
      {open && <Html key={`open-${s.closed.length}`} text={open} />}
    </div>
  );
}
