/** Builds dist/cli.js once before the tests if it is missing or older than the sources: the CLI tests run the real bundle. */
import { bundleCli } from '../../../electron/cli/bundle';

export default async function setup(): Promise<void> {
  await bundleCli({ ifStale: true });
}
