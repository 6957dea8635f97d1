import { defineConfig } from '@playwright/test';

// `npm run test:electron`: drives the real Electron app. Needs the Electron binary, so it is
// not part of `npm test` (the development machines cannot download it).
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: '../../test-results/electron',
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
});
