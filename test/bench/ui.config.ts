import { defineConfig } from '@playwright/test';

// `npm run bench:ui`: the UI benchmarks (the chat window, the memory tree) alone, one worker, its figures printed by the list reporter.
export default defineConfig({
  testDir: '.',
  testMatch: ['ui.bench.ts', 'tree.bench.ts', 'start.bench.ts'],
  outputDir: '../../test-results/bench-ui',
  workers: 1,
  reporter: [['list']],
});
