import { defineConfig } from 'vitest/config';

// One random seed per run for the sampled attack loops (test/deep.ts), the same in every worker; printed by each.
process.env.MNEMO_SEED ??= String(Math.floor(Math.random() * 2 ** 31));
// Every view a write patches in place is checked against the view built from scratch (sync/view.ts `checkPatched`).
process.env.MNEMO_VIEW_CHECK ??= '1';

const INCLUDE = ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts'];
/**
 * Files that replace a module for themselves (vi.mock) or stub globals: each runs in a fresh module graph. Every
 * other file shares its worker's loaded modules with the files before it (isolate: false): importing the graph
 * again per file (libsodium's WebAssembly, the SDK, the handlers) was about a fifth of the unit phase's CPU.
 * They hold no state between files: each makes its own folders and vaults, and the KDF stand-in decides by the
 * file that asks (fast-kdf.ts).
 */
const ISOLATED = ['test/unit/renderer/chat-rendering.test.ts', 'test/unit/main/consent-dialog.test.ts', 'test/unit/main/main-bundle.test.ts', 'test/unit/mcp-channel/attack-lock.test.ts'];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'shared', include: INCLUDE, exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
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
