/**
 * The CLI bundle the tests run as a child process: the shipped build
 * (electron/cli/bundle.ts) with the key derivation swapped for the test
 * stand-in (kdf-stand-in-plugin.ts), so that vaults made in the test process
 * and by the child open each other at no Argon2id cost. Kept apart from
 * dist/ under node_modules/.cache; built by the unit suite's global setup,
 * and by whatever starts it otherwise, when stale. The tests about the
 * shipped bundle itself (what it loads, the packaged app) run dist/cli.js.
 */
import path from 'node:path';
import { bundleCli, CLI_BUNDLE as SHIPPED_CLI_BUNDLE } from '../electron/cli/bundle';
import { kdfStandInPlugin, STAND_IN_SOURCES } from './kdf-stand-in-plugin';

// MNEMO_TEST_CLI_DIR: a folder of its own (inside the checkout, so node_modules is found from it), for worktrees that
// share one node_modules: each one's build replaced the other's mid-run.
const OUT = process.env.MNEMO_TEST_CLI_DIR ? path.resolve(process.env.MNEMO_TEST_CLI_DIR) : path.resolve(import.meta.dirname, '../node_modules/.cache/mnemo-test-cli');
export const TEST_CLI_BUNDLE = path.join(OUT, 'cli.js');
export { SHIPPED_CLI_BUNDLE };

/**
 * The environment a test's CLI child runs with: `env`, and this process's MNEMO_FORMAT unless `env` says one, so the
 * child makes and opens vaults in the same format as the test process (a vault the test made in format 2, opened by
 * a child in format 1, would be refused as a newer format).
 */
export function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return process.env.MNEMO_FORMAT !== undefined && !('MNEMO_FORMAT' in env) ? { MNEMO_FORMAT: process.env.MNEMO_FORMAT, ...env } : env;
}

export function buildTestCli(): Promise<boolean> {
  return bundleCli({ ifStale: true, outDir: OUT, plugins: [kdfStandInPlugin()], moreSources: STAND_IN_SOURCES });
}
