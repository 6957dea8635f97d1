/**
 * Keeping a conversation's API history in a shape the Messages API accepts,
 * whatever happened to the last turn (a stop, a refusal, a broken stream).
 */
import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';

export const STOPPED_RESULT = 'Error: The user stopped the turn before this memory operation finished. It may not have been applied; view the file to check.';

type ToolUse = Extract<BetaContentBlockParam, { type: 'tool_use' }>;

/** A history whose last assistant message called tools without results gets error results, so the API accepts the next turn. */
export function answerDangling(messages: BetaMessageParam[]): BetaMessageParam[] {
  const last = messages.at(-1);
  if (!last || last.role !== 'assistant' || !Array.isArray(last.content)) return messages;
  const uses = last.content.filter((b): b is ToolUse => b.type === 'tool_use');
  if (!uses.length) return messages;
  return [...messages, { role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: STOPPED_RESULT, is_error: true })) }];
}

/**
 * Appends the user's words, after the blocks of their attachments if any (the
 * API reads images and documents best before the question about them); after
 * tool results (a stopped turn) they join that same message, after the results.
 */
export function withUserMessage(messages: BetaMessageParam[], text: string, attachments: BetaContentBlockParam[] = []): BetaMessageParam[] {
  // A message of attachments alone has no words, and the API refuses an empty text block.
  const words: BetaContentBlockParam[] = text.trim() ? [{ type: 'text', text }] : [];
  const last = messages.at(-1);
  if (last?.role === 'user') {
    const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
    return [...messages.slice(0, -1), { role: 'user', content: [...content, ...attachments, ...words] }];
  }
  return [...messages, { role: 'user', content: attachments.length ? [...attachments, ...words] : text }];
}

/**
 * The API refuses empty or whitespace-only text blocks and empty messages; a
 * refusal or a reply cut off at once leaves exactly that. Such blocks are
 * dropped, an emptied message with them, and the neighbours that then meet
 * (two user messages) are joined, so roles still alternate.
 */
export function sendable(messages: BetaMessageParam[]): BetaMessageParam[] {
  const out: BetaMessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      out.push(m);
      continue;
    }
    const content = typeof m.content === 'string' ? (m.content.trim() ? m.content : []) : m.content.filter((b) => b.type !== 'text' || b.text.trim() !== '');
    if (!content.length) continue;
    const prev = out.at(-1);
    if (prev && prev.role === m.role) {
      out[out.length - 1] = { role: m.role, content: [...blocksOf(prev.content), ...blocksOf(content)] };
    } else {
      out.push(content === m.content ? m : { role: m.role, content });
    }
  }
  return out;
}

function blocksOf(content: string | BetaContentBlockParam[]): BetaContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
