// @vitest-environment jsdom
/**
 * The memory tree at 10,000 memories, rendered by React in jsdom: how many
 * items it puts in the page, which folders it opens, and keys that move to
 * rows not drawn yet. Counted, not timed (speed is test/bench/tree.bench.ts).
 */
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import type { Entry } from '../../../electron/shared/ipc-values';
import { Tree } from '../../../renderer/features/memories/Tree';
import { startTestI18n } from '../i18n/window-i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const pad = (n: number) => String(n).padStart(2, '0');
/** 20 areas × 20 topics × 25 notes: 10,000 memories in 420 folders. */
function bigTree(): Entry[] {
  const out: Entry[] = [];
  const at = Date.UTC(2026, 0, 1);
  for (let a = 0; a < 20; a++) {
    out.push({ kind: 'dir', path: `/memories/area-${pad(a)}`, created: at, modified: at });
    for (let t = 0; t < 20; t++) {
      out.push({ kind: 'dir', path: `/memories/area-${pad(a)}/topic-${pad(t)}`, created: at, modified: at });
      for (let n = 0; n < 25; n++) out.push({ kind: 'file', path: `/memories/area-${pad(a)}/topic-${pad(t)}/note-${pad(n)}.md`, size: 100, created: at, modified: at, version: 1 });
    }
  }
  return out;
}
const DEEP = '/memories/area-07/topic-13/note-24.md';

let root: Root;
let container: HTMLDivElement;
const items = () => [...container.querySelectorAll<HTMLElement>('[role=treeitem]')];
const item = (path: string) => container.querySelector<HTMLElement>(`[role=treeitem][title^="${path}"]`);
const focusedName = () => (document.activeElement as HTMLElement | null)?.querySelector('.name')?.textContent;
const press = (key: string) =>
  act(async () => {
    document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  });

async function render(selected: string | undefined, onSelect = vi.fn()) {
  await act(async () => {
    root.render(createElement(Tree, { entries: bigTree(), selected, onSelect, onRename: vi.fn(), onDelete: vi.fn() }));
  });
}

// The tree says things (its rows' tooltips, which these tests find items by): in English.
beforeAll(() => startTestI18n('en'));
beforeEach(() => {
  // jsdom lays nothing out: give the scroller a height, so the tree has a view's worth of rows to draw.
  vi.spyOn(Element.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(Element.prototype, 'clientWidth', 'get').mockReturnValue(300);
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
});
afterEach(async () => {
  await act(async () => root.unmount());
  container.remove();
  vi.restoreAllMocks();
});

it('holds a few hundred items at most for 10,000 memories, with every folder closed but the path to the selection', async () => {
  await render(DEEP);
  expect(items().length).toBeGreaterThan(0);
  expect(items().length).toBeLessThanOrEqual(500);
  const selected = item(DEEP)!;
  expect(selected.getAttribute('aria-selected')).toBe('true');
  expect([selected.getAttribute('aria-level'), selected.getAttribute('aria-posinset'), selected.getAttribute('aria-setsize')]).toEqual(['3', '25', '25']);
  expect(item('/memories/area-07')!.getAttribute('aria-expanded')).toBe('true');
  expect(item('/memories/area-00')!.getAttribute('aria-expanded')).toBe('false');
  // Exactly one Tab stop, and it is the selection.
  const stops = items().filter((i) => i.tabIndex === 0);
  expect(stops).toHaveLength(1);
  expect(stops[0]).toBe(selected);
});

it('with nothing selected shows the 20 top folders, closed, and no dates on them', async () => {
  await render(undefined);
  expect(items()).toHaveLength(20);
  for (const i of items()) {
    expect(i.getAttribute('aria-expanded')).toBe('false');
    expect(i.getAttribute('title')).toMatch(/^\/memories\/area-\d\d$/);
  }
});

it('End, Home, Right, Left and type-ahead move focus, drawing rows that were not in the page', async () => {
  await render('/memories/area-19/topic-19/note-24.md');
  await act(async () => items()[0]!.focus());
  expect(focusedName()).toBe('area-00');
  await press('End');
  expect(focusedName()).toBe('note-24.md');
  await press('Home');
  expect(focusedName()).toBe('area-00');
  await press('ArrowRight');
  expect(item('/memories/area-00')!.getAttribute('aria-expanded')).toBe('true');
  await press('ArrowRight');
  expect(focusedName()).toBe('topic-00');
  await press('ArrowLeft');
  expect(focusedName()).toBe('area-00');
  await press('ArrowLeft');
  expect(item('/memories/area-00')!.getAttribute('aria-expanded')).toBe('false');
  // "area-1" then "9": the word grows while keys come quickly.
  for (const k of 'area-19') await press(k);
  expect(focusedName()).toBe('area-19');
  expect(items().length).toBeLessThanOrEqual(500);
});

it('a selection made elsewhere opens its folders and becomes the Tab stop', async () => {
  await render(undefined);
  expect(item(DEEP)).toBeNull();
  await render(DEEP);
  expect(item(DEEP)?.getAttribute('aria-selected')).toBe('true');
  expect(item(DEEP)?.tabIndex).toBe(0);
  expect(item('/memories/area-07/topic-13')!.getAttribute('aria-expanded')).toBe('true');
});

it('an ask to show a folder opens it and its parents and focuses it, without selecting it', async () => {
  await render(undefined);
  const folder = '/memories/area-03/topic-02';
  await act(async () => {
    root.render(createElement(Tree, { entries: bigTree(), selected: undefined, reveal: { path: folder, n: 1 }, onSelect: vi.fn(), onRename: vi.fn(), onDelete: vi.fn() }));
  });
  expect(document.activeElement).toBe(item(folder));
  expect(item(folder)!.getAttribute('aria-expanded')).toBe('true');
  expect(item(folder)!.getAttribute('aria-selected')).toBe('false');
  expect(item(`${folder}/note-00.md`)).not.toBeNull();
  expect(item('/memories/area-03')!.getAttribute('aria-expanded')).toBe('true');
});
