// @vitest-environment jsdom
import hljs from 'highlight.js/lib/common';
import { expect, it, vi } from 'vitest';
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

it('a reply of 10,000 small unlabelled code blocks guesses the language of only a few of them, and shows every one', async () => {
  const guess = vi.spyOn(hljs, 'highlightAuto');
  try {
    const reply = Array.from({ length: 10_000 }, (_, i) => '```\nx = ' + i + '\nprint(x)\n```').join('\n\n');
    const html = renderMarkdown(reply);
    // Each guess runs every grammar (about 1 ms even for a line): thousands would hold the page for seconds.
    expect(guess.mock.calls.length).toBeLessThanOrEqual(16);
    expect(html.match(/<code class="hljs/g)).toHaveLength(10_000);
    expect(html).toContain('x = 9999');
  } finally {
    guess.mockRestore();
  }
});

it('unlabelled blocks drawn by many renders in one go (a streamed reply whose blocks close at once) share one bound on guessing', async () => {
  const guess = vi.spyOn(hljs, 'highlightAuto');
  try {
    const block = '```\n' + 'let a = 1;\n'.repeat(180) + '```';
    for (let i = 0; i < 500; i++) renderMarkdown(block);
    expect(guess.mock.calls.length).toBeLessThanOrEqual(16);
    // Once the page has drawn (the next task), guessing is allowed again.
    await new Promise((r) => setTimeout(r, 0));
    guess.mockClear();
    expect(renderMarkdown(block)).toContain('<span');
    expect(guess).toHaveBeenCalledTimes(1);
  } finally {
    guess.mockRestore();
  }
});

it('a block closed while streaming is a block of the whole reply, however the text is split (fences, tables, comments, lists numbered past 9)', () => {
  const docs = [
    'Intro\n\n```js\nconst a = 1;\n\n\nconst b = 2;\n```\n\nAfter.\n',
    'A\n\n````\n```\ninner\n```\n````\n\nB\n',
    'Head\n\n| a | b |\n|---|---|\n| 1 | 2 |\ncontinued row\n\nEnd\n',
    'Para\n\n<!-- a comment\n\nwith a blank line\n\n-->\n\nAfter comment\n',
    '- a\n- b\n\n  more of b\n\n- c\n\nDone\n',
    Array.from({ length: 30 }, (_, i) => '  '.repeat(i) + '- level ' + i).join('\n') + '\n\nEnd\n',
    'P\n\n    code1\n\n    code2\n\nQ\n',
    '> q1\n\n> q2\nlazy\n\nEnd\n',
    '1. one\n\n2. two\n\n10. ten\n\n100. hundred\n\nEnd\n',
    '1) one\n\n2) two\n\nEnd\n',
    '* a\n\n* b\n\n***\n\n- c\n\n---\n\nEnd\n',
  ];
  for (const text of docs) {
    // The whole reply's blocks (a final paragraph closes the last one).
    const whole = closeBlocks(text + '\n\nZZZ', 0).closed;
    for (const step of [1, 2, 3, 7]) {
      const closed: string[] = [];
      let openStart = 0;
      for (let n = step; n < text.length + step; n += step) {
        const r = closeBlocks(text.slice(0, Math.min(n, text.length)), openStart);
        closed.push(...r.closed);
        openStart = r.openStart;
      }
      expect({ text, step, closed }).toEqual({ text, step, closed: whole.slice(0, closed.length) });
      expect(closed.join('') + text.slice(openStart)).toBe(text);
    }
  }
});
