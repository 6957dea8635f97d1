/**
 * Small pieces of a turn that need none of its state: the request's context
 * management, reading tool results and stop reasons, usage counts a hostile
 * server cannot poison, and settling a stream on a stop.
 */
import { APIUserAbortError } from '@anthropic-ai/sdk';
import type { BetaContentBlockParam, BetaMessageParam, BetaToolResultBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Settings } from '../../shared/settings';
import type { TokenCounts } from './pricing';

export function contextManagement(settings: Settings) {
  const cm = settings.contextManagement;
  const edits = [];
  if (cm.enabled) {
    edits.push({
      type: 'clear_tool_uses_20250919' as const,
      trigger: { type: 'input_tokens' as const, value: cm.triggerInputTokens },
      keep: { type: 'tool_uses' as const, value: cm.keepToolUses },
      clear_at_least: { type: 'input_tokens' as const, value: cm.clearAtLeastTokens },
      exclude_tools: ['memory'],
    });
  }
  if (settings.compaction) edits.push({ type: 'compact_20260112' as const });
  return { edits } as never;
}

export function toolResultsOf(response: BetaMessageParam | null): BetaToolResultBlockParam[] {
  if (!response || !Array.isArray(response.content)) return [];
  return (response.content as BetaContentBlockParam[]).filter((b): b is BetaToolResultBlockParam => b.type === 'tool_result');
}

export function resultText(content: BetaToolResultBlockParam['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
}

/** The API's stop reasons; the server's string goes on to the window, so anything else is reported as `unknown`. */
const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

export function knownStopReason(reason: string | null | undefined): string {
  if (reason === null || reason === undefined) return 'end_turn';
  return STOP_REASONS.has(reason) ? reason : 'unknown';
}

export function untilStopped<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new APIUserAbortError());
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** More tokens than any request can carry: a count above it is a broken or hostile server's, not a bill. */
const MAX_TOKENS_PER_RESPONSE = 100_000_000;

/**
 * A usage count as the server sent it, if it is one: a whole number from 0 up.
 * Anything else counts as 0, so a stored reply's usage always passes the IPC
 * contract (a string or NaN saved there would stop the conversation opening)
 * and totals never turn negative or NaN.
 */
function tokenCount(n: unknown): number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_TOKENS_PER_RESPONSE ? n : 0;
}

export function addUsage(t: TokenCounts, u: { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown } | null | undefined): void {
  if (typeof u !== 'object' || u === null) return;
  t.inputTokens += tokenCount(u.input_tokens);
  t.outputTokens += tokenCount(u.output_tokens);
  t.cacheReadTokens += tokenCount(u.cache_read_input_tokens);
  t.cacheWriteTokens += tokenCount(u.cache_creation_input_tokens);
}
