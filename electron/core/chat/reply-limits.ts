/**
 * Bounds on what one reply from the API may bring, so a broken or hostile
 * server cannot fill memory or the vault: a reply's text, tool input and
 * thinking together may not go far past what its `max_tokens` allows, and no
 * response body may go far past that either (one endless SSE line included).
 */
import type { BetaRawMessageStreamEvent } from '@anthropic-ai/sdk/resources/beta/messages/messages';

/** No token is longer than this many bytes in practice (UTF-8, JSON-escaped): a wide margin over the ~4 of real text. */
export const REPLY_BYTES_PER_TOKEN = 16;
/** Room for the short replies a tiny max_tokens still legitimately carries. */
export const REPLY_SLACK_BYTES = 64 * 1024;

/** The most bytes of text, tool input and thinking one reply may stream for `maxTokens`. */
export function replyByteLimit(maxTokens: number): number {
  return maxTokens * REPLY_BYTES_PER_TOKEN + REPLY_SLACK_BYTES;
}

/**
 * The most bytes one response body may carry: the reply's limit times the SSE
 * framing around tiny deltas (a few characters in ~120 bytes of event), plus
 * room for the events that carry no content. Past it the body is cut even if
 * no event has ended yet.
 */
export function responseByteLimit(maxTokens: number): number {
  return replyByteLimit(maxTokens) * 32 + 4 * 1024 * 1024;
}

/** Why a reply was cut: it went past its byte limit. */
export class ReplyTooLong extends Error {
  constructor() {
    super('The reply was far longer than its maximum length allows.');
    this.name = 'ReplyTooLong';
  }
}

/**
 * Counts the content bytes of one streamed reply and calls `over` once, the moment they pass `limit`. A block's
 * start counts whole (JSON), as the SDK keeps whatever text, input or thinking a server puts there, deltas or not;
 * so does any content in message_start, and each block costs its framing, so thousands of tiny calls add up too.
 */
export function replyMeter(limit: number, over: () => void): (event: BetaRawMessageStreamEvent) => void {
  let bytes = 0;
  let tripped = false;
  return (event) => {
    if (tripped) return;
    if (event.type === 'message_start') bytes += JSON.stringify(event.message.content ?? []).length;
    if (event.type === 'content_block_start') bytes += JSON.stringify(event.content_block).length;
    if (event.type === 'content_block_delta') {
      const d = event.delta as { text?: unknown; partial_json?: unknown; thinking?: unknown; signature?: unknown; citation?: unknown };
      for (const v of [d.text, d.partial_json, d.thinking, d.signature]) if (typeof v === 'string') bytes += v.length;
      if (d.citation !== undefined) bytes += 256;
    }
    if (bytes > limit) {
      tripped = true;
      over();
    }
  };
}

/**
 * A response whose body errors with ReplyTooLong once more than `limit` bytes
 * have come, so what is buffered of it stays bounded. Other responses pass as they are.
 */
export function boundedResponse(res: Response, limit: number, onCut: () => void): Response {
  if (!res.body) return res;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) {
        onCut();
        controller.error(new ReplyTooLong());
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(res.body.pipeThrough(counter), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The most characters of a reply's thinking kept in its transcript entry. A
 * turn may think in every round (up to 8,192 tokens each), so what is stored is
 * capped: the entry stays small enough to load and draw at once, and the rest
 * is said to be left out rather than silently dropped.
 */
export const THINKING_KEPT_CHARS = 32 * 1024;

/** A reply's thinking as it is stored: whole, or its first THINKING_KEPT_CHARS characters and a note of what was left out. */
export function keptThinking(thinking: string, limit = THINKING_KEPT_CHARS): string {
  if (thinking.length <= limit) return thinking;
  // Never cut a surrogate pair in half: the stored text stays valid UTF-16.
  const end = /[\uD800-\uDBFF]/.test(thinking[limit - 1] ?? '') ? limit - 1 : limit;
  return `${thinking.slice(0, end)}\n\n[… ${(thinking.length - end).toLocaleString('en')} more characters of thinking were not kept]`;
}
