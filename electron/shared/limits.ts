/**
 * Size bounds the contract checks before a call's handler runs, so text too
 * large for what it is headed to is never decoded, encrypted or stored. A
 * value past one of these is refused with LIMIT and the bound's own message
 * (other malformed input stays BAD_INPUT).
 */
import { z } from 'zod';

/**
 * The most characters a memory's text may have: the memory tool's per-file limit in bytes
 * (DEFAULT_MEMORY_LIMITS.maxFileBytes), as a UTF-8 byte is at least one UTF-16 character.
 * Main checks the exact byte size, and the vault's total, before it writes.
 */
export const MAX_MEMORY_TEXT_CHARS = 1024 * 1024;

/** Each bound's refusal by its text: English, and its catalog key (`errors:…`) for the window's language. */
const messages = new Map<string, { message: string; key: string }>();

/** A string of at most `max` characters whose refusal says `message` (what happened and what to do), with its catalog key. */
export function boundedText(max: number, refusal: { message: string; key: string }): z.ZodString {
  messages.set(refusal.message, refusal);
  return z.string().max(max, refusal.message);
}

/** The refusal of a bound from `boundedText` that `error` broke, if it broke one. */
export function brokenBound(error: z.ZodError): { message: string; key: string } | undefined {
  const issue = error.issues.find((i) => i.code === 'too_big' && messages.has(i.message));
  return issue && messages.get(issue.message);
}
