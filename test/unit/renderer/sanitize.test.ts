// @vitest-environment jsdom
/**
 * The fast twin of test/e2e/hostile-markdown.spec.ts: every payload of the
 * hostile corpus rendered through the real Markdown pipeline comes out as
 * allow-listed elements and attributes only.
 */
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, TRUSTED_TYPES_POLICY } from '../../../electron/main/csp';
import { renderMarkdown } from '../../../renderer/lib/markdown';
import { TRUSTED_TYPES_POLICY_NAME } from '../../../renderer/lib/sanitize';
import { XSS_PAYLOADS } from '../../fixtures/xss-payloads';

const TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'hr', 'br']);
const ATTRS = new Set(['href', 'title', 'align', 'start']);

function render(markdown: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = renderMarkdown(markdown);
  return root;
}

function safeHref(href: string): boolean {
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(href).protocol) && /^(?:https?|mailto):/i.test(href);
  } catch {
    return false;
  }
}

/** Everything wrong with one rendered payload, as readable strings (empty when inert). */
function problems(root: HTMLElement): string[] {
  const found: string[] = [];
  for (const el of Array.from(root.querySelectorAll('*'))) {
    const tag = el.tagName.toLowerCase();
    // highlight.js's spans, inside a code block our renderer produced, are the only other element.
    const inOurCode = tag === 'span' && el.closest('pre > code.hljs') !== null;
    if (!TAGS.has(tag) && !inOurCode) found.push(`<${tag}>`);
    for (const { name, value } of Array.from(el.attributes)) {
      if (name === 'class' && ((tag === 'code' && /^hljs( language-[\w+#-]+)?$/.test(value)) || (inOurCode && /^hljs-[\w-]+( [\w-]+_?)*$/.test(value)))) continue;
      // DOMPurify blanks `is` rather than removing it (the element would keep its parsed value); empty names nothing.
      if (name === 'is' && value === '') continue;
      if (!ATTRS.has(name)) found.push(`${tag}[${name}=${value.slice(0, 40)}]`);
      if (name === 'href' && !safeHref(value)) found.push(`${tag}[href=${value.slice(0, 40)}]`);
    }
  }
  return found;
}

describe('hostile Markdown renders inert', () => {
  it('the corpus holds at least 100 distinct payloads', () => {
    expect(new Set(XSS_PAYLOADS.map((p) => p.markdown)).size).toBeGreaterThanOrEqual(100);
  });

  it('every payload keeps only allow-listed elements and attributes, and only http(s)/mailto links', () => {
    const bad: Record<string, string[]> = {};
    for (const p of XSS_PAYLOADS) {
      const found = problems(render(p.markdown));
      if (found.length) bad[p.name] = found;
    }
    expect(bad).toEqual({});
  });

  it('drops media elements, poster, background, class, id and name that the old sanitiser kept', () => {
    const root = render(
      '<video poster="https://evil.example/p.png"></video><audio src="https://evil.example/a.mp3"></audio>' +
        '<video><source src="https://evil.example/v.mp4"><track src="https://evil.example/t.vtt"></video>' +
        '<table background="https://evil.example/bg.png"><tr><td>c</td></tr></table>' +
        '<p class="approval" id="root">p</p><a name="top" href="https://ok.example">a</a>',
    );
    expect(root.querySelectorAll('video, audio, source, track').length).toBe(0);
    expect(root.querySelectorAll('[poster], [background], [class], [id], [name], [src]').length).toBe(0);
    expect(Array.from(root.querySelectorAll('p')).some((p) => p.textContent === 'p')).toBe(true);
    expect(root.querySelector('a')?.getAttribute('href')).toBe('https://ok.example');
  });

  it('cannot draw a fake Approve card with our own classes', () => {
    const root = render('<div class="approval" role="group" aria-label="Approve delete"><button class="primary">Approve</button></div>');
    expect(root.querySelectorAll('.approval, .primary, button, [role], [aria-label]').length).toBe(0);
    expect(root.textContent).toContain('Approve');
  });

  it('content cannot choose classes even ones highlight.js uses; only our highlighter sets them', () => {
    const raw = render('<pre><code class="hljs language-js"><span class="hljs-keyword">fake</span></code></pre>');
    expect(raw.querySelectorAll('[class]').length).toBe(0);
    const fenced = render('```ts\nconst x = 1;\n```');
    expect(fenced.querySelector('pre > code')?.getAttribute('class')).toBe('hljs language-ts');
    expect(fenced.querySelector('span.hljs-keyword')?.textContent).toBe('const');
  });

  it('a code fence cannot smuggle markup through its language name', () => {
    const root = render('```"><img src=x onerror=alert(1)>\ncode\n```');
    expect(root.querySelectorAll('img').length).toBe(0);
    expect(problems(root)).toEqual([]);
  });

  it('keeps absolute http(s) and mailto links and removes every other href', () => {
    const root = render('[a](https://ok.example/x) [b](http://ok.example) [c](mailto:me@ok.example) [d](/local) [e](#frag) [f](data:text/html,x) [g](vbscript:x) [h](jav&#x61;script:x) <javascript:x>');
    const hrefs = Array.from(root.querySelectorAll('a')).map((a) => a.getAttribute('href'));
    expect(hrefs.filter(Boolean)).toEqual(['https://ok.example/x', 'http://ok.example', 'mailto:me@ok.example']);
  });

  it('shows a Markdown image as a link, never as an image that loads', () => {
    const root = render('![the chart](https://example.com/chart.png) ![bad](javascript:x)');
    expect(root.querySelectorAll('img').length).toBe(0);
    expect(root.querySelector('a')?.getAttribute('href')).toBe('https://example.com/chart.png');
    expect(root.textContent).toContain('Image: the chart');
    expect(root.textContent).toContain('Image: bad');
  });
});

describe('the Content Security Policy', () => {
  it('requires Trusted Types for script sinks and allows only our one policy', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'");
    expect(CONTENT_SECURITY_POLICY).toMatch(/(^|; )trusted-types mnemo-markdown(;|$)/);
    expect(TRUSTED_TYPES_POLICY_NAME).toBe(TRUSTED_TYPES_POLICY);
  });
});
