/**
 * The three lists a conversation's log stores (API messages, transcript, turn
 * starts) and the cut-and-append that records a change of one of them.
 */
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { TranscriptEntry } from '../../shared/chat';
import { VaultError } from '../vault/types';
import { m } from '../i18n/message';

/** What the log stores of a conversation: its id and three lists; every other field goes in the head as it is. */
export interface LoggedConversation {
  id: string;
  messages: BetaMessageParam[];
  transcript: TranscriptEntry[];
  turnStarts?: number[];
}

/** A cut-and-append of one list: keep the first `keep` items, then add `add`. */
export interface Tail<T> {
  keep: number;
  add: T[];
}

export function cut<T>(list: T[], t: Tail<T>): T[] {
  if (t.keep > list.length) throw new VaultError('DAMAGED', m('errors:conversation.partMissing'));
  if (t.keep < list.length) list.length = t.keep;
  list.push(...t.add);
  return list;
}

/**
 * The change from `before` to `after` as a cut-and-append. Items are compared
 * by identity first (a turn's new transcript reuses the old entries), then by
 * value (its API history comes back from the SDK as copies).
 */
export function tail<T>(before: T[], after: T[]): Tail<T> {
  let keep = 0;
  const n = Math.min(before.length, after.length);
  while (keep < n && same(before[keep], after[keep])) keep++;
  return { keep, add: after.slice(keep) };
}

/** Equal as JSON values (walked, not serialised: a save compares the whole history, and this keeps that cheap). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => same(x, bb[i]));
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
