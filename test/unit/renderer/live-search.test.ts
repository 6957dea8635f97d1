// @vitest-environment jsdom
/** Search as you type: debounced, and only the answer to the latest query is ever kept. */
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SEARCH_DEBOUNCE_MS, useLiveSearch } from '../../../renderer/lib/use-live-search';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Search = ReturnType<typeof useLiveSearch<string>>;
let root: Root;
let state: Search;
const asked: Array<{ query: string; resolve: (items: string[]) => void; reject: (e: Error) => void }> = [];
function Probe({ scope }: { scope: string }) {
  state = useLiveSearch<string>((query) => new Promise((resolve, reject) => asked.push({ query, resolve, reject })), scope);
  return null;
}
const render = (scope = 'p1') => act(() => root.render(createElement(Probe, { scope })));
const type = (q: string) => act(() => state.setQuery(q));
const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

beforeEach(() => {
  vi.useFakeTimers();
  asked.length = 0;
  root = createRoot(document.createElement('div'));
});
afterEach(() => {
  act(() => root.unmount());
  vi.useRealTimers();
});

it('asks once typing pauses, not on every key', async () => {
  render();
  for (const q of ['a', 'ac', 'aco', 'acoe', 'acoes']) {
    type(q);
    await wait(SEARCH_DEBOUNCE_MS - 50);
  }
  expect(asked).toEqual([]);
  await wait(50);
  expect(asked.map((a) => a.query)).toEqual(['acoes']);
});

it('an older answer arriving after a newer one never replaces it, and pending says whether the answer shown is for the box', async () => {
  render();
  type('tea');
  await wait(SEARCH_DEBOUNCE_MS);
  type('team');
  await wait(SEARCH_DEBOUNCE_MS);
  expect(asked.map((a) => a.query)).toEqual(['tea', 'team']);
  expect(state.pending).toBe(true);
  await act(async () => asked[1]!.resolve(['team hit']));
  expect(state.answer).toEqual({ query: 'team', items: ['team hit'] });
  expect(state.pending).toBe(false);
  await act(async () => asked[0]!.resolve(['tea hit', 'other']));
  expect(state.answer).toEqual({ query: 'team', items: ['team hit'] });
  // A failure of an old query is not shown either.
  type('teams');
  await wait(SEARCH_DEBOUNCE_MS);
  type('teamsx');
  await wait(SEARCH_DEBOUNCE_MS);
  await act(async () => asked[2]!.reject(new Error('old failure')));
  expect(state.error).toBeUndefined();
  expect(state.pending).toBe(true);
});

it('an empty box means no search and no answer; a new scope asks again', async () => {
  render();
  type('kiwi');
  await wait(SEARCH_DEBOUNCE_MS);
  await act(async () => asked[0]!.resolve(['k']));
  expect(state.answer?.items).toEqual(['k']);
  type('   ');
  expect(state.answer).toBeUndefined();
  expect(state.pending).toBe(false);
  await wait(SEARCH_DEBOUNCE_MS);
  expect(asked).toHaveLength(1);
  type('kiwi');
  await wait(SEARCH_DEBOUNCE_MS);
  render('p2');
  await wait(SEARCH_DEBOUNCE_MS);
  expect(asked.map((a) => a.query)).toEqual(['kiwi', 'kiwi', 'kiwi']);
});
