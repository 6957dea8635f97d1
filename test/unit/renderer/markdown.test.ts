// @vitest-environment jsdom
import { expect, it } from 'vitest';
import { closeBlocks, renderMarkdown } from '../../../renderer/lib/markdown';

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

it('an unlabelled code block above 2 KB is left plain instead of guessing its language', () => {
  const big = Array.from({ length: 120 }, (_, i) => `def f${i}(x): return x * ${i}  # line`).join('\n');
  expect(big.length).toBeGreaterThan(2048);
  const html = renderMarkdown('```\n' + big + '\n```');
  expect(html).toContain('<code class="hljs">');
  expect(html).not.toContain('<span');
  expect(html).toContain('def f119(x)');
});

it('a labelled code block is highlighted with the language it names, however long', () => {
  const big = Array.from({ length: 120 }, (_, i) => `const v${i} = ${i};`).join('\n');
  const html = renderMarkdown('```js\n' + big + '\n```');
  expect(html).toContain('<code class="hljs language-js">');
  expect(html).toMatch(/<span class="hljs-keyword">const<\/span>/);
});

it('streamed Markdown closes a block only once another has begun, and its pieces add up to the text', () => {
  const text = '# Title\n\nA paragraph\nover two lines.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- one\n- two\n\nStill open';
  const { closed, openStart } = closeBlocks(text, 0);
  expect(closed.map((b) => b.trim())).toEqual(['# Title', 'A paragraph\nover two lines.', '```ts\nconst a = 1;\n\nconst b = 2;\n```', '- one\n- two']);
  expect(closed.join('') + text.slice(openStart)).toBe(text);
  expect(text.slice(openStart).trim()).toBe('Still open');
  // An open code fence is one open block, blank lines and all.
  expect(closeBlocks('Intro\n\n```py\nx = 1\n\ny = 2\n', 0).closed.map((b) => b.trim())).toEqual(['Intro']);
  // Lexing resumes where the closed blocks end.
  const again = closeBlocks(text + '\n\nNext', openStart);
  expect(again.closed.map((b) => b.trim())).toEqual(['Still open']);
});
