import type { ModelInfo } from '../../electron/shared/projects';
import { formatTokens } from './format';
import { i18n } from './i18n';

/** "200K context", "1M context": a window as people say it, in the window's language ("20万 …"). */
export function windowText(tokens: number): string {
  return i18n.t('chat:model.window', { size: formatTokens(tokens, true) });
}

/** Each price tier's words (catalog keys). */
export const TIER_WORDS = { economy: 'model.tier.economy', standard: 'model.tier.standard', premium: 'model.tier.premium' } as const satisfies Record<NonNullable<ModelInfo['priceTier']>, string>;

/** One choice of a model list: a model, or (value null) "the one in Settings". */
export interface ModelChoice {
  value: string | null;
  /** What the closed box shows. */
  short: string;
  name: string;
  /** The model's id, when its name differs (not language: shown as it is). */
  id?: string;
  /** Context window and price tier. */
  details: string;
  /** `name` and `short` are a model's own (its display name or id), not the window's words. */
  literal?: boolean;
}

function choiceOf(m: ModelInfo): ModelChoice {
  const named = m.displayName && m.displayName !== m.id;
  const name = named ? m.displayName : m.id;
  const t = i18n.getFixedT(null, 'chat');
  const details = [windowText(m.contextWindow), m.priceTier ? t(TIER_WORDS[m.priceTier]) : undefined].filter(Boolean).join(' · ');
  return { value: m.id, short: name, name, ...(named ? { id: m.id } : {}), details, literal: true };
}

/**
 * The choices a model list offers: "Default" first when there is a default to
 * follow, then a chosen model the list does not hold (marked as not offered
 * once there is a list to say it against), then every listed model.
 */
export function modelChoices(models: readonly ModelInfo[], value: string | null, opts: { defaultModel?: string | undefined; listLoaded: boolean }): ModelChoice[] {
  const t = i18n.getFixedT(null, 'chat');
  const choices: ModelChoice[] = [];
  if (opts.defaultModel !== undefined) {
    const from = models.find((m) => m.id === opts.defaultModel);
    const shown = from ? choiceOf(from).short : opts.defaultModel;
    choices.push({ value: null, short: t('model.defaultShort', { model: shown }), name: t('model.defaultName'), details: t('model.defaultDetails', { model: shown }) });
  }
  if (value !== null && !models.some((m) => m.id === value)) choices.push({ value, short: value, name: value, details: opts.listLoaded ? t('model.notOffered') : '', literal: true });
  choices.push(...models.map(choiceOf));
  return choices;
}
