import { defineConfig } from '@playwright/test';

// `npm run bench:ui`: the UI benchmark alone, one worker, its figures printed by the list reporter.
export default defineConfig({
  testDir: '.',
  testMatch: 'ui.bench.ts',
  outputDir: '../../test-results/bench-ui',
  workers: 1,
  reporter: [['list']],
});
