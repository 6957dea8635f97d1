/** Reading the memory tree as a person scrolling it would: only the rows near the view are in the page (issue 20). */
import type { Locator } from '@playwright/test';

/**
 * The names of every item in the memory tree inside `within`, in order, read
 * by scrolling its list from top to bottom a view at a time (each step waits
 * for a frame, so the rows drawn for that view are in); the scroll position
 * is put back afterwards.
 */
export async function allTreeItemNames(within: Locator): Promise<string[]> {
  return within.locator('.tree-scroll').evaluate(async (scroller) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const seen = new Map<number, string>();
    const before = scroller.scrollTop;
    const read = () => {
      for (const el of scroller.querySelectorAll('[role=treeitem]')) {
        // Each row carries its place in the whole list: rows seen in two views count once.
        seen.set(Number(el.getAttribute('data-index')), el.querySelector('.name')?.textContent ?? '');
      }
    };
    for (let top = 0; ; top += Math.max(1, scroller.clientHeight)) {
      scroller.scrollTop = top;
      await frame();
      read();
      if (top + scroller.clientHeight >= scroller.scrollHeight) break;
    }
    scroller.scrollTop = before;
    return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, name]) => name);
  });
}
