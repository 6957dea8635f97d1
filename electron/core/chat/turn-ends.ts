/**
 * The ways a turn ends other than Claude finishing: main refusing a reply,
 * cutting one, the round limit, and a lock. Each is kept in the transcript
 * with a message that says what happened and what to do next.
 */
import type { MappedError } from './errors';
import type { StoredConversation } from './conversations';

/** The abort reason of a turn stopped because the vault is locking (user, idle or system): the message is kept. */
export class TurnInterrupt {
  constructor(readonly why: 'lock') {}
}

/** Why main itself ended a turn. */
export type TurnEnd = MappedError & { code: 'too_large' | 'server' };

export const CUT_REPLY: TurnEnd = {
  code: 'too_large',
  message: 'The reply was cut: it ran far past its maximum length (“Max tokens” in Settings), which only a broken or misbehaving API server does. What arrived before the cut is kept.',
};

export const REPEATED_IDS: TurnEnd = {
  code: 'server',
  message: 'The API sent a reply in which memory calls repeat the same id, so Mnemo refused the whole reply: nothing in it was run or written. Send again; if it keeps happening, the API server is not behaving as Anthropic’s does.',
};

/** More tool calls than one reply of Claude's ever makes: each tiny, they would pass the byte limit by the thousand. */
export const MAX_TOOL_CALLS_PER_REPLY = 100;

export const TOO_MANY_CALLS: TurnEnd = {
  code: 'server',
  message: `The API sent a reply with more than ${MAX_TOOL_CALLS_PER_REPLY} memory calls at once, far more than Claude makes, so Mnemo refused the whole reply: nothing in it was run or written. Send again; if it keeps happening, the API server is not behaving as Anthropic’s does.`,
};

/** A reply whose message_start already holds content: the SDK would keep it and run its calls, but no block event shows them. */
export const CONTENT_IN_START: TurnEnd = {
  code: 'server',
  message: 'The API sent a reply whose content came before any of its blocks, which the Messages API never does, so Mnemo refused the whole reply: nothing in it was run or written. Send again; if it keeps happening, the API server is not behaving as Anthropic’s does.',
};

export const INTERRUPTED_BY_LOCK: MappedError = {
  code: 'locked',
  message: 'Interrupted: the vault locked while Claude was answering. Your message and what had arrived are kept; send again to carry on.',
};

/** The round limit was reached with Claude still calling tools. */
export function roundsReached(rounds: number): MappedError {
  return {
    code: 'max_rounds',
    message: `Claude was still working after ${rounds} rounds of memory calls, the most one turn may make (“Tool rounds per turn” in Settings). Continue carries on from here.`,
  };
}

/** True when the conversation's last reply was stopped by the round limit, and its history ends with that round's tool results. */
export function canContinue(conv: Pick<StoredConversation, 'transcript' | 'messages'>): boolean {
  const last = conv.transcript.at(-1);
  const tail = conv.messages.at(-1);
  return last?.role === 'assistant' && last.error?.code === 'max_rounds' && tail?.role === 'user' && Array.isArray(tail.content) && tail.content.some((b) => b.type === 'tool_result');
}
