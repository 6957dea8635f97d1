#!/usr/bin/env node
/**
 * The `mnemo` command: the vault, the memory tool and the chat from a terminal
 * (DESIGN.md §8). Built into dist/cli.js (`npm run build:cli`). `mnemo --help`
 * needs only the help text, so it is answered before anything else loads;
 * every other command loads the CLI, which loads the SDK only for `chat`.
 */
import { USAGE } from './cli/usage';

const args = process.argv.slice(2);
// `mnemo ls | head -1`: the reader has all it wants. End quietly, as a pipeline expects, instead of with a stack
// trace. Any change already acknowledged is durable; one in flight is kept or dropped whole, as after a kill.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
if (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help')) {
  process.stdout.write(USAGE);
} else {
  const { runCli } = await import('./cli/main');
  process.exitCode = await runCli(args, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
