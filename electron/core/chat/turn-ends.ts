/**
 * The ways a turn ends other than Claude finishing: main refusing a reply,
 * cutting one, the round limit, and a lock. Each is kept in the transcript
 * with a message that says what happened and what to do next.
 */
import { mapped, type MappedError } from './errors';
import { m } from '../i18n/message';
import type { StoredConversation } from './conversations';

/** The abort reason of a turn stopped because the vault is locking (user, idle or system): the message is kept. */
export class TurnInterrupt {
  constructor(readonly why: 'lock') {}
}

/** Why main itself ended a turn. */
export type TurnEnd = MappedError & { code: 'too_large' | 'server' };

export const CUT_REPLY = mapped('too_large', m('errors:turn.cut')) as TurnEnd;

export const REPEATED_IDS = mapped('server', m('errors:turn.repeatedIds')) as TurnEnd;

/** More tool calls than one reply of Claude's ever makes: each tiny, they would pass the byte limit by the thousand. */
export const MAX_TOOL_CALLS_PER_REPLY = 100;

export const TOO_MANY_CALLS = mapped('server', m('errors:turn.tooManyCalls', { count: MAX_TOOL_CALLS_PER_REPLY })) as TurnEnd;

/** A reply whose message_start already holds content: the SDK would keep it and run its calls, but no block event shows them. */
export const CONTENT_IN_START = mapped('server', m('errors:turn.contentInStart')) as TurnEnd;

export const INTERRUPTED_BY_LOCK: MappedError = mapped('locked', m('errors:turn.interruptedByLock'));

/** The round limit was reached with Claude still calling tools. */
export function roundsReached(rounds: number): MappedError {
  return mapped('max_rounds', m('errors:turn.maxRounds', { count: rounds }));
}

/** True when the conversation's last reply was stopped by the round limit, and its history ends with that round's tool results. */
export function canContinue(conv: Pick<StoredConversation, 'transcript' | 'messages'>): boolean {
  const last = conv.transcript.at(-1);
  const tail = conv.messages.at(-1);
  return last?.role === 'assistant' && last.error?.code === 'max_rounds' && tail?.role === 'user' && Array.isArray(tail.content) && tail.content.some((b) => b.type === 'tool_result');
}
