import { defineConfig } from '@playwright/test';

// The specs start their own Chromium through test/e2e/harness.ts (no Electron here), so no projects.
// One random seed per run for the sampled attack loops (test/deep.ts), the same in every worker; printed by each.
process.env.MNEMO_SEED ??= String(Math.floor(Math.random() * 2 ** 31));

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/output',
  // Each spec runs Argon2id (64 MiB) in this process; two at a time is what 2 cores bear. Measured on
  // 2 cores (load average 13, 28 tests): 2 workers 218 s against 1 worker 269 s, slowest test 33 s.
  workers: 2,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  forbidOnly: !!process.env.CI,
});
