#!/usr/bin/env node
/**
 * The `mnemo` command: the vault, the memory tool and the chat from a terminal
 * (DESIGN.md §8). Built into dist/cli.js (`npm run build:cli`). `mnemo --help`
 * needs only the help text, so it is answered before anything else loads;
 * every other command loads the CLI, which loads the SDK only for `chat`.
 */
import { useCliLanguage } from './cli/i18n';
import { usage } from './cli/usage';

const args = process.argv.slice(2);
/** Drops everything later written to `stream` (its reader is gone), calling write callbacks as if written. */
function mute(stream: NodeJS.WriteStream): void {
  stream.write = ((_chunk: unknown, enc?: unknown, cb?: unknown) => {
    const done = typeof enc === 'function' ? enc : cb;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as typeof stream.write;
}
/** Set once the CLI is loaded: the command may change the vault. */
let writes = false;
// `mnemo ls | head -1`: the reader has all it wants. A command that only reads ends quietly, as a pipeline expects,
// instead of with a stack trace; one that may be changing the vault (a chat turn, Claude's memory calls) runs to its
// end with its output dropped, so its exit status still says whether its changes were made.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  if (!writes) process.exit(0);
  mute(process.stdout);
});
// Nobody reads the messages any more: the command still runs to its end.
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  mute(process.stderr);
});
if (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help')) {
  await useCliLanguage(process.env);
  process.stdout.write(usage());
} else {
  const { mayWrite, runCli } = await import('./cli/main');
  writes = mayWrite(args);
  process.exitCode = await runCli(args, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
