import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, it } from 'vitest';
import { Marked } from '../../../renderer/components/Marked';

const html = (text: string, marks?: Array<[number, number]>) => renderToStaticMarkup(createElement(Marked, { text, marks }));

it('wraps each matched range in <mark>, keeping the text around it', () => {
  expect(html('As ações e AÇÕES', [[3, 8], [11, 16]])).toBe('As <mark>ações</mark> e <mark>AÇÕES</mark>');
  expect(html('長期記憶の保存', [[2, 4]])).toBe('長期<mark>記憶</mark>の保存');
});

it('ranges from main that overlap, go backwards or out of bounds are skipped, and the text stays text', () => {
  expect(html('<b>tea</b>', [[3, 6], [4, 5], [9, 100], [-1, 2]])).toBe('&lt;b&gt;<mark>tea</mark>&lt;/b&gt;');
  expect(html('plain')).toBe('plain');
});
