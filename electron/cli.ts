#!/usr/bin/env node
/** The `mnemo` command: the vault, the memory tool and the chat from a terminal (DESIGN.md §8). */
import { runCli } from './cli/main';

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
