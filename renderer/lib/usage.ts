/** How a reply's token use and cost are written under it. */
import type { Usage } from '../../electron/shared/chat';

export const money = (usd: number | null | undefined) => (usd === null || usd === undefined ? 'price unknown' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

/**
 * The model, every input token the request carried (cache reads and writes
 * included, with how many were read from the cache), output tokens and cost.
 * With prompt caching the API's `input_tokens` is only the uncached tail, so
 * showing it alone would understate the input many times over.
 */
export function usageLine(u: Usage): string {
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const cached = u.cacheReadTokens > 0 ? ` (${u.cacheReadTokens.toLocaleString()} cached)` : '';
  return `${u.model} · ${input.toLocaleString()} in${cached} / ${u.outputTokens.toLocaleString()} out · ${money(u.costUSD)}`;
}
