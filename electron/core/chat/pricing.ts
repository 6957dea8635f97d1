/** List prices in dollars per million tokens, for showing what a turn cost. Unknown models cost null. */
const PRICES: Array<[RegExp, { input: number; output: number }]> = [
  [/^claude-opus-4-[56789]|^claude-opus-5/, { input: 5, output: 25 }],
  [/^claude-opus-4(-1)?(-|$)/, { input: 15, output: 75 }],
  [/^claude-sonnet-/, { input: 3, output: 15 }],
  [/^claude-haiku-4-5|^claude-haiku-5/, { input: 1, output: 5 }],
];

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Dollars for `usage` on `model`: cache writes at 1.25× input, cache reads at 0.1× input. */
export function costUSD(model: string, usage: TokenCounts): number | null {
  const price = PRICES.find(([re]) => re.test(model))?.[1];
  if (!price) return null;
  const input = usage.inputTokens + usage.cacheWriteTokens * 1.25 + usage.cacheReadTokens * 0.1;
  const cost = Math.round(((input * price.input + usage.outputTokens * price.output) / 1e6) * 1e6) / 1e6;
  // Counts no real bill has (negative, NaN, overflowing) give no price rather than one that poisons the conversation's total.
  return Number.isFinite(cost) && cost >= 0 ? cost : null;
}

export type PriceTier = 'economy' | 'standard' | 'premium';

/** Where `model`'s list price sits, by its input price: up to $1 per million tokens economy, up to $3 standard, above premium; undefined when unknown. */
export function priceTier(model: string): PriceTier | undefined {
  const price = PRICES.find(([re]) => re.test(model))?.[1];
  if (!price) return undefined;
  return price.input <= 1 ? 'economy' : price.input <= 3 ? 'standard' : 'premium';
}
