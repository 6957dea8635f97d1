/**
 * Storing a finished turn: the user's message (with its attachments' bytes)
 * and Claude's reply go into the conversation in one update, applied to the
 * conversation as it is by then.
 */
import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { TranscriptEntry } from '../../shared/chat';
import { titleFrom, UNTITLED, type StoredConversation } from './conversation-values';
import type { ConversationStore } from './temporary';
import { answerDangling, sendable, withUserMessage } from './history';
import { referenceBlock } from './attachments-send';
import { keptAttachments } from './branches';
import type { PendingAttachment } from './turn';

/** Saves one exchange: the user's message (undefined: a Continue, which adds only the reply) and the reply; the conversation as saved (undefined: it was deleted meanwhile). */
export async function save(conversations: ConversationStore, base: StoredConversation, historyLength: number, messages: BetaMessageParam[], user: { text: string; attachments: PendingAttachment[] } | undefined, reply: TranscriptEntry): Promise<StoredConversation | undefined> {
  if (!user) {
    // A Continue carries on the last exchange: its rounds join that exchange's history, and the reply follows it.
    return conversations.update(base.id, (conv) => ({ ...conv, updated: Date.now(), messages, transcript: [...conv.transcript, reply] }), base);
  }
  const now = Date.now();
  const userText = user.text;
  const attachments = user.attachments.map(({ data: _data, ...ref }) => ref);
  // The bytes first: the entry that refers to them is written only once they are durable.
  for (const a of user.attachments) await conversations.putAttachment(base.id, a.id, a.data);
  // Applied to the conversation as it is now: the user may have renamed it while Claude answered (or deleted it, which stands).
  // `base`, read when the turn began, spares reading the whole conversation again: the save writes only this exchange.
  const saved = await conversations.update(base.id, (conv) => {
    const { after, start } = rebase(conv.messages, base.messages, messages, historyLength, userText, attachments.map(referenceBlock));
    return {
      ...conv,
      title: conv.title === UNTITLED && conv.transcript.length === 0 ? titleFrom(userText.trim() ? userText : attachments.map((a) => a.name).join(', ')) : conv.title,
      updated: now,
      messages: after,
      // The user's words are always in the last message of the history the exchange follows.
      turnStarts: [...(conv.turnStarts ?? []), start],
      transcript: [...conv.transcript, { role: 'user', text: userText, at: now, ...(attachments.length ? { attachments } : {}) }, reply],
    };
  }, base);
  // Bytes nothing names any more (a cut-short earlier save, a message taken back and not sent again, or all of them
  // if the conversation was deleted while Claude answered) go now.
  // Those of other versions (branches.ts) are named too, and stay.
  await conversations.pruneAttachments(base.id, saved ? keptAttachments(saved) : new Set());
  return saved;
}

/**
 * The API history with this exchange, and where its user message is. The turn
 * sent `historyLength` messages built from `began`; if the stored history has
 * changed since (the last exchange was taken back while Claude answered), the
 * exchange is put after the history as it is now, so what Claude is sent next
 * agrees with the transcript instead of bringing the taken-back exchange back.
 */
function rebase(now: BetaMessageParam[], began: BetaMessageParam[], messages: BetaMessageParam[], historyLength: number, userText: string, attachments: BetaContentBlockParam[]): { after: BetaMessageParam[]; start: number } {
  if (now === began || (now.length === began.length && JSON.stringify(now) === JSON.stringify(began))) return { after: messages, start: historyLength - 1 };
  const history = withUserMessage(answerDangling(sendable(now)), userText, attachments);
  // A refusal's exchange is already cut from `messages` (shorter than what was sent): then it stays out here too.
  const after = messages.length >= historyLength ? [...history, ...messages.slice(historyLength)] : history.slice(0, -1);
  return { after, start: history.length - 1 };
}

