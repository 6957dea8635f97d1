import { defineConfig } from 'vitest/config';

// Real Syncthing on loopback (docs/sync-design.md §9.3): only through `npm run test:syncthing`, the last phase of
// `npm test`. Real Argon2id at the floor: no stand-in here.
export default defineConfig({
  test: {
    include: ['test/sync-e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 90_000,
    // One file at a time: each starts its own Syncthing instances.
    fileParallelism: false,
    maxWorkers: 1,
    // For the failure summary at the end of `npm test` (test/failure-summary.ts).
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/syncthing.json' },
  },
});
