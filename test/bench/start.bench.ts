/**
 * Part of `npm run bench:ui`: the renderer's start cost (issue 21: catalogs are loaded per language). For
 * the first-run screen (no vault) and the unlocked app (a vault made before the page loads), each opened
 * RUNS times in a fresh browser context: ms from navigation start to the first paint after the page's
 * `<h1>` is in the DOM (a MutationObserver, then a requestAnimationFrame), and the bytes of script and
 * JSON the page fetched by then. Median of RUNS; it prints, it never fails on time.
 */
import { test } from '@playwright/test';
import { freshApp } from '../e2e/helpers';

const RUNS = Number(process.env.MNEMO_BENCH_START_RUNS ?? 15);

interface Start {
  ms: number;
  scriptBytes: number;
  scripts: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function startOnce(createdWith: string | undefined, locale: string | undefined): Promise<Start> {
  const app = await freshApp({ ...(createdWith ? { createdWith } : {}), locale });
  try {
    // The page loaded before this runs; the init script below is for the reload, measured from its own navigation start.
    await app.page.addInitScript(() => {
      const w = window as unknown as { __start: Promise<number> };
      w.__start = new Promise<number>((resolve) => {
        const seen = () => {
          if (!document.querySelector('h1')) return false;
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
          return true;
        };
        const observer = new MutationObserver(() => seen() && observer.disconnect());
        document.addEventListener('DOMContentLoaded', () => seen() || observer.observe(document.body, { childList: true, subtree: true }));
      });
    });
    await app.page.reload();
    const ms = await app.page.evaluate(() => (window as unknown as { __start: Promise<number> }).__start);
    const res = await app.page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => /\.(js|json)(\?|$)/.test(r.name)).map((r) => r.decodedBodySize),
    );
    return { ms, scriptBytes: res.reduce((a, b) => a + b, 0), scripts: res.length };
  } finally {
    await app.cleanup();
  }
}

for (const [name, createdWith] of [
  ['first-run screen', undefined],
  ['unlocked app', 'amber-kettle-orbit-sonnet-42'],
] as const) {
  for (const locale of (process.env.MNEMO_BENCH_START_LOCALES ?? 'en-US').split(',')) {
    test(`start: ${name}, ${locale}`, async () => {
      test.setTimeout(RUNS * 20_000);
      const runs: Start[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await startOnce(createdWith, locale));
      const ms = median(runs.map((r) => r.ms));
      const last = runs.at(-1)!;
      console.log(`start ${name} (${locale}): first h1 painted ${ms.toFixed(1)} ms median of ${RUNS} (min ${Math.min(...runs.map((r) => r.ms)).toFixed(1)}); ${last.scripts} script/JSON files, ${(last.scriptBytes / 1024).toFixed(1)} KiB`);
      console.log(JSON.stringify({ bench: 'start', screen: name, locale, medianMs: ms, scripts: last.scripts, scriptBytes: last.scriptBytes }));
    });
  }
}
