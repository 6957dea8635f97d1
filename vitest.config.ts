import { defineConfig } from 'vitest/config';

// One random seed per run for the sampled attack loops (test/deep.ts), the same in every worker; printed by each.
process.env.MNEMO_SEED ??= String(Math.floor(Math.random() * 2 ** 31));

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts'],
    environment: 'node',
    // The CLI tests run the bundled dist/cli.js: built here once if missing or stale.
    globalSetup: ['test/unit/cli/global-setup.ts'],
    // Argon2id replaced by a fast stand-in except where a child process or the KDF's own tests need it (see the file).
    setupFiles: ['test/unit/fast-kdf.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Argon2id takes 64 MiB or more per derivation: keep the parallelism modest on 2 cores.
    maxWorkers: 2,
    // The JSON report feeds the failure summary at the end of `npm test` (test/failure-summary.ts).
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/unit.json' },
  },
});
