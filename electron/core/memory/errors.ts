/**
 * Errors the memory tool throws. The SDK runner sends a thrown error's message
 * to Claude as `Error: <message>`, so every message here is written for Claude,
 * uses the reference tool's wording where one exists, and never carries a host
 * path or OS error text.
 */
import { VaultError } from '../vault/types';
import { SecretGuardError } from './guard';
import { MemoryPathError } from './paths';

/** A memory-tool failure whose message is safe and meant to be read by Claude. */
export class MemoryToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryToolError';
  }
}

/** What Claude is told on a vault whose rollback alarm is up: nothing is read from or written to the older copy. */
export const ROLLED_BACK_MESSAGE =
  'the memory vault was rolled back: it is older than the newest copy this device has seen (restored from a backup, or a sync brought back an older copy). Memory is unavailable until the user checks it and accepts it (mnemo accept-rollback, or in the app).';

/** Which path a failed vault call was about, to word the error like the reference does. */
export interface ErrorContext {
  command: string;
  path: string;
  newPath?: string;
}

/** The reference's "does not exist" text, which differs between commands. */
export function notFoundMessage(command: string, path: string): string {
  return command === 'delete' || command === 'rename'
    ? `The path ${path} does not exist`
    : `The path ${path} does not exist. Please provide a valid path.`;
}

/**
 * Turns anything thrown below the handlers into a `MemoryToolError` with a
 * message fit for Claude. Vault errors are mapped by code; unknown errors are
 * replaced by a generic message because their text may hold host paths.
 */
export function toToolError(e: unknown, ctx: ErrorContext): Error {
  if (e instanceof MemoryToolError || e instanceof MemoryPathError || e instanceof SecretGuardError) return e;
  if (!(e instanceof VaultError)) {
    return new MemoryToolError(`The ${ctx.command} command failed because of an unexpected problem in the memory store. Nothing more is known; try again.`);
  }
  const subject = e.subject !== undefined && e.subject.startsWith('/memories') ? e.subject : ctx.path;
  switch (e.code) {
    case 'NOT_FOUND':
      return new MemoryToolError(notFoundMessage(ctx.command, subject));
    case 'EXISTS':
      return new MemoryToolError(
        ctx.command === 'rename' ? `The destination ${ctx.newPath ?? subject} already exists` : `File ${ctx.path} already exists`,
      );
    case 'NOT_A_FILE':
      return new MemoryToolError(`The path ${subject} is not a file.`);
    case 'NOT_A_DIRECTORY':
      return new MemoryToolError(`The path ${subject} is a file, not a directory, so nothing can be placed inside it.`);
    case 'DAMAGED':
      return new MemoryToolError(damagedMessage(subject));
    case 'LOCKED':
      return new MemoryToolError('The memory vault is locked, so memory cannot be used right now. Ask the user to unlock Mnemo, then try again.');
    case 'LIMIT':
      return new MemoryToolError('No change was made: the memory vault has reached a size limit. Delete or shorten memories that are no longer needed, then try again.');
    case 'CONFLICT':
      return new MemoryToolError(`No change was made: ${subject} was changed by someone else at the same moment. View it again, then retry.`);
    case 'DISK_FULL':
      return new MemoryToolError(`No change was made: the ${ctx.command} command could not be saved because the disk holding the memory vault is full. Tell the user to free some disk space, then try again.`);
    case 'IO':
      return new MemoryToolError(`The ${ctx.command} command could not be completed because the memory vault could not be read or written. Try again; if it keeps failing, tell the user.`);
    default:
      return new MemoryToolError(`The ${ctx.command} command could not be completed: the memory vault refused it (${e.code}). Tell the user.`);
  }
}

/** What Claude is told about a memory whose encrypted content failed its integrity check. */
export function damagedMessage(path: string): string {
  return (
    `The memory ${path} is damaged: its stored content failed the vault's integrity check, so it cannot be read or edited. ` +
    'Tell the user; they can restore an earlier version in Mnemo. You may delete it or create a replacement at another path.'
  );
}
