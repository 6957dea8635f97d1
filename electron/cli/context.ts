import type { Readable, Writable } from 'node:stream';
import type { VaultApi } from '../core/vault/types';

/** Exit codes of the `mnemo` CLI (DESIGN.md §8). */
export const Exit = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  CANNOT_UNLOCK: 3,
  DAMAGED: 4,
} as const;
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** What a CLI sub-command gets: parsed flags, an unlocked vault, and the process's streams. */
export interface CliCommandContext {
  /** Arguments after the sub-command name, with global flags (--vault, --passphrase-file) removed. */
  argv: string[];
  /** The vault, already opened and unlocked. The caller closes it. */
  vault: VaultApi;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}
