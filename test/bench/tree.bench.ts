/**
 * Part of `npm run bench:ui`: the Memories tab at 10,000 memories (issue 20).
 * Three projects are seeded straight through core: "Big" with 10,000 memories
 * in 420 folders (closed, so 20 rows show), "Flat" with 10,000 memories and no
 * folder (10,000 rows: the case virtualisation is for), and "Small" with 100
 * in folders like Big's, the reference.
 * With the Memories tab open, picking a project in the picker lists its
 * memories; measured in the page, from the list's answer arriving (the
 * `mnemo:memory-list` performance mark, set as the answer lands) to the first
 * paint after its first tree item is in the DOM (the frame after a
 * requestAnimationFrame), median of RUNS picks each; and the tree items in the
 * DOM. Also: the Chat tab → Memories tab switch with Big's tree already
 * listed (click → first paint after). Target (issue 20): first paint ≤ 300 ms
 * after the list arrives, DOM items ≤ 500. It prints; it never fails on time.
 */
import { test } from '@playwright/test';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { Projects } from '../../electron/core/projects/store';
import { Vault } from '../../electron/core/vault/vault';
import { TEST_KDF } from '../e2e/harness';
import { freshApp, PASSPHRASE, unlock } from '../e2e/helpers';

const BIG = Number(process.env.MNEMO_BENCH_TREE_SIZE ?? 10_000);
const SMALL = 100;
const RUNS = Number(process.env.MNEMO_BENCH_TREE_RUNS ?? 5);

/** `count` memories, 25 to a topic folder, 20 topics to an area (10,000 → 20 areas × 20 topics × 25 notes); `flat`: all in /memories itself. */
function files(count: number, prefix: string, flat = false): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const pad = (n: number) => String(n).padStart(2, '0');
  for (let i = 0; i < count; i++) {
    const note = i % 25;
    const topic = Math.floor(i / 25) % 20;
    const area = Math.floor(i / 500);
    const path = flat ? `/memories/${prefix}-note-${String(i).padStart(5, '0')}.md` : `/memories/${prefix}-area-${pad(area)}/topic-${pad(topic)}/note-${pad(note)}.md`;
    out.push({ path, text: `Note ${i}: ${'a memory of about a hundred bytes, as short notes are. '.repeat(2)}` });
  }
  return out;
}

interface Paint {
  ms: number;
  items: number;
  /** The list landing → its first tree item in the DOM (the script's share of `ms`). */
  domMs?: number;
}

/** Picks `projectId` and returns ms from its list landing to the first paint showing its tree, and the tree items then in the DOM. */
async function pickTimed(page: Page, projectId: string, prefix: string): Promise<Paint> {
  await page.evaluate(
    ([projectId, prefix]) => {
      const w = window as unknown as { __paint: Promise<Paint> };
      w.__paint = new Promise<Paint>((resolve) => {
        const landed = () => (performance.getEntriesByName('mnemo:memory-list', 'mark') as PerformanceMark[]).filter((m) => (m.detail as { project?: string } | null)?.project === projectId).at(-1);
        const shown = () => document.querySelector(`#memory-list [role=treeitem][title^="/memories/${prefix}-"]`);
        const observer = new MutationObserver(() => {
          if (!shown()) return;
          observer.disconnect();
          const inDom = performance.now();
          // The frame that draws this DOM: its animation-frame callbacks run, then it paints, then the next task runs.
          requestAnimationFrame(() =>
            setTimeout(() => {
              const end = performance.now();
              const mark = landed();
              resolve({ ms: mark ? end - mark.startTime : NaN, domMs: mark ? inDom - mark.startTime : NaN, items: document.querySelectorAll('[role=treeitem]').length });
            }),
          );
        });
        observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      });
    },
    [projectId, prefix] as const,
  );
  await page.getByRole('combobox', { name: 'Memories of project' }).selectOption(projectId);
  return page.evaluate(() => (window as unknown as { __paint: Promise<Paint> }).__paint);
}

/** From the Chat tab: clicks the Memories tab and returns ms to the first paint after, with the tree items then in the DOM. */
async function tabTimed(page: Page): Promise<Paint> {
  await page.getByRole('tab', { name: /^Chat/ }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return page.evaluate(
    () =>
      new Promise<Paint>((resolve) => {
        const tab = document.querySelector<HTMLElement>('#tab-memories');
        if (!tab) throw new Error('no Memories tab');
        const start = performance.now();
        tab.click();
        requestAnimationFrame(() => setTimeout(() => resolve({ ms: performance.now() - start, items: document.querySelectorAll('#memory-list [role=treeitem]').length })));
      }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('Memories tree benchmark', async () => {
  test.setTimeout(10 * 60_000);
  const app = await freshApp();
  try {
    const { page } = app;
    // Made and filled through core before the window unlocks it: filled with the window open, each file's change event would cross to the page on its own.
    const { vault } = await Vault.create(path.join(app.userDataDir, 'vault'), PASSPHRASE, { stateDir: path.join(app.userDataDir, 'state'), kdf: TEST_KDF });
    const projects = new Projects(vault);
    const big = await projects.create('Big');
    const small = await projects.create('Small');
    const flat = await projects.create('Flat');
    try {
      // One import per project, at the vault paths the project's /memories maps to.
      for (const [id, list] of [
        [big.id, files(BIG, 'big')],
        [small.id, files(SMALL, 'small')],
        [flat.id, files(BIG, 'flat', true)],
      ] as const) {
        const scope = await projects.memoryScope(id);
        await vault.importFiles(
          list.map((f) => ({ ...f, path: scope.toVault(f.path) })),
          { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e10 },
        );
      }
    } finally {
      await vault.close();
    }
    await page.reload();
    await unlock(page);
    await page.getByRole('tab', { name: 'Memories' }).click();
    const picker = page.getByRole('combobox', { name: 'Memories of project' });
    await picker.focus();
    await page.locator('#memory-list option', { hasText: 'Small' }).waitFor({ state: 'attached' });

    const bigRuns: Paint[] = [];
    const smallRuns: Paint[] = [];
    const flatRuns: Paint[] = [];
    // Alternating, so every size sees the same machine load.
    for (let i = 0; i < RUNS; i++) {
      smallRuns.push(await pickTimed(page, small.id, 'small'));
      bigRuns.push(await pickTimed(page, big.id, 'big'));
      flatRuns.push(await pickTimed(page, flat.id, 'flat'));
    }
    // The tab switch with Big listed.
    await pickTimed(page, big.id, 'big');
    const tabRuns: Paint[] = [];
    for (let i = 0; i < RUNS; i++) tabRuns.push(await tabTimed(page));

    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    const row = (label: string, runs: Paint[], ref: Paint[]) =>
      `${label.padEnd(24)} | ${fmt(median(runs.map((r) => r.ms))).padStart(11)} | ${(median(runs.map((r) => r.ms)) / median(ref.map((r) => r.ms))).toFixed(2).padStart(5)}× | ${fmt(median(runs.map((r) => r.domMs ?? NaN))).padStart(8)} | ${String(Math.max(...runs.map((r) => r.items))).padStart(9)}`;
    console.log(`Memories tree benchmark: list answer → first paint of the tree, median of ${RUNS}; ratio against ${SMALL} memories in the same run.`);
    console.log('memories                 | first paint |  ratio |   in DOM | DOM items');
    console.log(row(`${SMALL}`, smallRuns, smallRuns));
    console.log(row(`${BIG.toLocaleString('en')} in 420 folders`, bigRuns, smallRuns));
    console.log(row(`${BIG.toLocaleString('en')}, no folders`, flatRuns, smallRuns));
    console.log(`Chat tab → Memories tab with ${BIG.toLocaleString('en')} listed: ${fmt(median(tabRuns.map((r) => r.ms)))} to the first paint, ${Math.min(...tabRuns.map((r) => r.items))}–${Math.max(...tabRuns.map((r) => r.items))} tree items in the DOM then`);
    const bigMs = Math.max(median(bigRuns.map((r) => r.ms)), median(flatRuns.map((r) => r.ms)));
    const bigItems = Math.max(...bigRuns.map((r) => r.items), ...flatRuns.map((r) => r.items), ...tabRuns.map((r) => r.items));
    console.log(`targets: first paint ≤ 300 ms at ${BIG.toLocaleString('en')}: ${bigMs <= 300}; DOM items ≤ 500: ${bigItems <= 500}`);
    console.log(JSON.stringify({ big: BIG, small: SMALL, bigRuns, smallRuns, flatRuns, tabRuns, targets: { firstPaint300: bigMs <= 300, items500: bigItems <= 500 } }));
  } finally {
    await app.cleanup();
  }
});
