/** How a reply's token use and cost are written under it, in the window's language. */
import type { Usage } from '../../electron/shared/chat';
import { formatTokens, formatUSD } from './format';
import { i18n } from './i18n';

/** A cost as the API bills it (US dollars), or that its price is not known. */
export const money = (usd: number | null | undefined) => (usd === null || usd === undefined ? i18n.t('chat:usage.priceUnknown') : formatUSD(usd));

/**
 * The model, every input token the request carried (cache reads and writes
 * included, with how many were read from the cache), output tokens and cost.
 * With prompt caching the API's `input_tokens` is only the uncached tail, so
 * showing it alone would understate the input many times over.
 */
export function usageLine(u: Usage): string {
  const values = { model: u.model, input: formatTokens(u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens), output: formatTokens(u.outputTokens), cost: money(u.costUSD) };
  return u.cacheReadTokens > 0 ? i18n.t('chat:usage.lineCached', { ...values, cached: formatTokens(u.cacheReadTokens) }) : i18n.t('chat:usage.line', values);
}
