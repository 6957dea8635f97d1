import type { ModelInfo } from '../../electron/shared/projects';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** "200K context", "1M context": a window as people say it. */
export function windowText(tokens: number): string {
  return `${compact.format(tokens)} context`;
}

export const TIER_WORDS: Record<NonNullable<ModelInfo['priceTier']>, string> = { economy: 'Lower price', standard: 'Mid price', premium: 'Higher price' };

/** One choice of a model list: a model, or (value null) "the one in Settings". */
export interface ModelChoice {
  value: string | null;
  /** What the closed box shows. */
  short: string;
  name: string;
  /** Id (when the name differs), context window and price tier. */
  details: string;
}

function choiceOf(m: ModelInfo): ModelChoice {
  const named = m.displayName && m.displayName !== m.id;
  const name = named ? m.displayName : m.id;
  const details = [named ? m.id : undefined, windowText(m.contextWindow), m.priceTier ? TIER_WORDS[m.priceTier] : undefined].filter(Boolean).join(' · ');
  return { value: m.id, short: name, name, details };
}

/**
 * The choices a model list offers: "Default" first when there is a default to
 * follow, then a chosen model the list does not hold (marked as not offered
 * once there is a list to say it against), then every listed model.
 */
export function modelChoices(models: readonly ModelInfo[], value: string | null, opts: { defaultModel?: string | undefined; listLoaded: boolean }): ModelChoice[] {
  const choices: ModelChoice[] = [];
  if (opts.defaultModel !== undefined) {
    const from = models.find((m) => m.id === opts.defaultModel);
    const shown = from ? choiceOf(from).short : opts.defaultModel;
    choices.push({ value: null, short: `Default (${shown})`, name: 'Default', details: `${shown}, as set in Settings` });
  }
  if (value !== null && !models.some((m) => m.id === value)) choices.push({ value, short: value, name: value, details: opts.listLoaded ? 'Not offered by the API' : '' });
  choices.push(...models.map(choiceOf));
  return choices;
}
