import { register } from 'node:module';
import { defineConfig } from '@playwright/test';

// In the test processes only, the vault's key derivation is a fast stand-in except where a spec needs the real
// Argon2id (test/e2e/fast-kdf.ts says which and why). The config is loaded by the runner and by every worker.
register('./test/e2e/fast-kdf-hooks.mjs', import.meta.url);

// The specs start their own Chromium through test/e2e/harness.ts (no Electron here), so no projects.
// One random seed per run for the sampled attack loops (test/deep.ts), the same in every worker; printed by each.
process.env.MNEMO_SEED ??= String(Math.floor(Math.random() * 2 ** 31));
// Every view a write patches in place is checked against the view built from scratch (sync/view.ts `checkPatched`).
process.env.MNEMO_VIEW_CHECK ??= '1';

/**
 * The new user's walk (walk-new-user.spec.ts: one app through every chat and list feature in a row, each screen
 * photographed) runs under `npm run test:deep` and `npm run test:screens`; every step of it has its own spec
 * in `npm test` (chat-versions, chat-titles, chat-extras, conversation-list, models, first-run-polish,
 * memory-pane, keyboard). It was the longest spec, about 95 s of the end-to-end phase's worker time.
 */
const REVIEW_WALKS = process.env.MNEMO_DEEP === '1' || process.env.MNEMO_SCREENS === '1' ? [] : ['**/walk-new-user.spec.ts'];

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  testIgnore: REVIEW_WALKS,
  outputDir: 'test-results/output',
  // Each spec runs Argon2id (64 MiB) in this process, and much of a test is waiting on the page. Measured
  // on 2 cores, quiet, 53 tests of 7 specs: 2 workers 204 s, 3 workers 176 s, 4 workers 194 s.
  workers: 3,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // The JSON report feeds the failure summary at the end of `npm test` (test/failure-summary.ts).
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  forbidOnly: !!process.env.CI,
});
