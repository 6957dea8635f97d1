// @vitest-environment jsdom
import { expect, it } from 'vitest';
import { renderMarkdown } from '../../../renderer/lib/markdown';

it('prompt-injected HTML in Markdown comes out inert', () => {
  const html = renderMarkdown('Hi <img src=x onerror="alert(1)"> <script>alert(2)</script> <iframe src="https://evil"></iframe> [x](javascript:alert(3)) <a href="https://ok.example" onclick="alert(4)">ok</a> <b style="color:red">b</b>');
  const doc = new DOMParser().parseFromString(`<div>${html}</div>`, 'text/html');
  expect(doc.querySelectorAll('img, script, iframe, style').length).toBe(0);
  expect(html).not.toMatch(/onerror|onclick|javascript:|style=/i);
  expect(doc.querySelector('a[href="https://ok.example"]')?.textContent).toBe('ok');
  expect(doc.querySelector('body')?.textContent).toContain('b');
});

it('code blocks are highlighted with class-only spans', () => {
  const html = renderMarkdown('```ts\nconst answer: number = 42; // the answer\n```');
  expect(html).toContain('<code class="hljs language-ts">');
  expect(html).toMatch(/<span class="hljs-keyword">const<\/span>/);
  expect(html).toMatch(/<span class="hljs-comment">\/\/ the answer<\/span>/);
});
