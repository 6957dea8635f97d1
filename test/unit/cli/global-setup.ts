/**
 * Builds the CLI once before the tests if it is missing or older than the sources: dist/cli.js, which the tests
 * about the shipped bundle run, and the tests' own build of it (test/test-cli.ts), which the rest run.
 */
import { bundleCli } from '../../../electron/cli/bundle';
import { buildTestCli } from '../../test-cli';

export default async function setup(): Promise<void> {
  await Promise.all([bundleCli({ ifStale: true }), buildTestCli()]);
}
