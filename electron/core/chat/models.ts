/**
 * The models the API offers (`client.models.list`), kept in the vault so the
 * picker works offline and refreshed only when asked, and the context meter:
 * how many tokens a conversation uses of its model's window.
 */
import { createHash } from 'node:crypto';
import type { ContextUse, ModelInfo, ModelList } from '../../shared/projects';
import { Conversations, type StoredConversation } from './conversations';
import { attachmentsOf, expandAttachments, type AttachmentBytes } from './attachments-send';
import { VaultError, type VaultApi } from '../vault/types';
import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import { createClient } from './client';
import { mapChatError, messageOfMapped } from './errors';
import { answerDangling, sendable } from './history';
import { systemPrompt } from './prompt';
import { loadSettings } from './settings-store';
import { priceTier } from './pricing';
import { m } from '../i18n/message';
import { untilLock } from '../vault/until-lock';

const KEY = 'models';

/**
 * Context windows for models whose API object does not state one
 * (`max_input_tokens` is null there): the documented 200,000 tokens of every
 * current Claude model unless listed here.
 */
const KNOWN_WINDOWS: Array<[RegExp, number]> = [[/^claude-(sonnet-4-6|opus-4-6)/, 1_000_000]];
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** The context window of `model`: as the stored list says, else the table above. */
export function contextWindowOf(model: string, known: readonly ModelInfo[] = []): number {
  return known.find((m) => m.id === model)?.contextWindow ?? KNOWN_WINDOWS.find(([re]) => re.test(model))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/**
 * Bounds on what the Models API may hand us, so a broken or hostile endpoint
 * cannot fill the vault or keep a refresh going: at most this many models
 * (ten pages of 100), ids no longer than a model setting may be, display names
 * cut to a line, and windows between one token and a hundred million.
 */
export const MAX_MODELS = 1000;
const PAGE_SIZE = 100;
const MAX_ID = 100;
const MAX_NAME = 200;
const MAX_WINDOW = 100_000_000;
/** Controls, format characters (bidi overrides and isolates, zero-width, soft hyphen) and line separators: nothing a model name needs, and each can disguise one. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** One model object as the API sent it (anything), as Mnemo keeps it, or undefined when it is not usable. */
export function modelFromApi(raw: unknown): ModelInfo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { id, display_name: name, max_input_tokens: stated } = raw as Record<string, unknown>;
  // The id is sent back to the API and saved as the model setting: it must be exactly what the API said, and fit.
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID || id.replace(INVISIBLE, '') !== id || id.trim() !== id) return undefined;
  const shown = typeof name === 'string' ? name.slice(0, MAX_NAME * 4).replace(INVISIBLE, '').trim().slice(0, MAX_NAME) : '';
  const window = typeof stated === 'number' && Number.isSafeInteger(stated) && stated > 0 && stated <= MAX_WINDOW ? stated : contextWindowOf(id);
  return { id, displayName: shown || id, contextWindow: window };
}

/** Models as last fetched (empty before the first fetch). */
export async function storedModels(vault: VaultApi): Promise<ModelList> {
  return (await vault.internal.getJSON<ModelList>(KEY)) ?? { models: [], fetched: 0 };
}

/**
 * The models list: the stored copy, or (with `refresh`, or when none is
 * stored) fetched from the API and stored. Fails with a message to act on
 * when no key is set or the API cannot be reached.
 */
export async function listModels(vault: VaultApi, opts: { refresh?: boolean; env?: NodeJS.ProcessEnv; maxRetries?: number } = {}): Promise<ModelList> {
  const stored = await storedModels(vault);
  if (!opts.refresh && stored.fetched > 0) return withTiers(stored);
  const tc = await createClient(vault, { ...(opts.env ? { env: opts.env } : {}), maxRetries: opts.maxRetries ?? 2 });
  if (!tc) throw new VaultError('INVALID', m('errors:models.noKey'));
  // Said only when true: a first fetch that fails has nothing to fall back on.
  const kept = stored.fetched > 0;
  const models: ModelInfo[] = [];
  const seen = new Set<string>();
  try {
    let page = await tc.client.models.list({ limit: PAGE_SIZE });
    for (let pages = 1; ; pages++) {
      const items: unknown = page.data;
      for (const raw of Array.isArray(items) ? items : []) {
        const m = modelFromApi(raw);
        // A model listed twice keeps its first listing.
        if (!m || seen.has(m.id)) continue;
        seen.add(m.id);
        models.push(m);
        if (models.length >= MAX_MODELS) break;
      }
      // The server decides whether there is another page; we decide how many we read.
      if (models.length >= MAX_MODELS || pages >= MAX_MODELS / PAGE_SIZE || !page.hasNextPage()) break;
      page = await page.getNextPage();
    }
  } catch (err) {
    if (err instanceof APIError || err instanceof APIConnectionError) {
      throw new VaultError('IO', m(kept ? 'errors:models.fetchFailedKept' : 'errors:models.fetchFailed', { reason: messageOfMapped(mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : [])) }));
    }
    throw new VaultError('IO', kept ? m('errors:models.notAListKept') : m('errors:models.notAList'));
  }
  if (models.length === 0) throw new VaultError('IO', kept ? m('errors:models.noneUsableKept') : m('errors:models.noneUsable'));
  const list: ModelList = { models, fetched: Date.now() };
  await vault.internal.putJSON(KEY, list);
  return withTiers(list);
}

/** The list with each model's price tier, from today's price table (so a stored list never carries a stale one). */
function withTiers(list: ModelList): ModelList {
  if (!Array.isArray(list.models)) return list;
  return { ...list, models: list.models.map(({ priceTier: _stale, ...m }) => ({ ...m, ...(priceTier(m.id) ? { priceTier: priceTier(m.id) } : {}) })) };
}

/**
 * Counts had for histories with attachments, by store and by a hash of what
 * was counted (model, system prompt, the history with its references): an
 * attachment's bytes never change under its id, so opening an unchanged
 * conversation again decrypts none of its images to count them again.
 */
const counted = new WeakMap<object, Map<string, number>>();
const COUNTS_KEPT = 64;

/**
 * The counts kept for `store` (the vault's, or a temporary chats' store), forgotten when `vault` locks: their
 * keys are digests of decrypted histories, and the app keeps both objects across its locks and unlocks.
 */
function countsOf(vault: VaultApi, store: object): Map<string, number> {
  return untilLock(vault, counted, store, () => new Map<string, number>());
}

/**
 * Tokens `conv` uses of the window of its model (its own, else the one in Settings): the API's count
 * of the history as the next turn would send it (countTokens), or, when that
 * cannot be had (no key, offline), the input of the last reply's usage.
 * Attachments are counted as sent (their bytes from `opts.attachments`, by
 * default the vault's), never as the stored history's references.
 */
export async function contextUse(vault: VaultApi, conv: StoredConversation, opts: { env?: NodeJS.ProcessEnv; attachments?: AttachmentBytes } = {}): Promise<ContextUse> {
  const settings = await loadSettings(vault);
  // The conversation's own model when one was picked beside the message box, as its next turn would use.
  const model = conv.model ?? settings.model;
  const window = contextWindowOf(model, (await storedModels(vault)).models);
  const base = { window, model };
  if (conv.messages.length === 0) return { ...base, used: 0, source: 'none' };
  const tc = await createClient(vault, { ...(opts.env ? { env: opts.env } : {}), maxRetries: 0 });
  if (tc) {
    try {
      const store = opts.attachments ?? new Conversations(vault);
      const history = answerDangling(sendable(conv.messages));
      const refs = attachmentsOf(conv.transcript);
      const cache = refs.size ? countsOf(vault, opts.attachments ?? vault) : undefined;
      const key = cache && createHash('sha256').update(JSON.stringify([model, systemPrompt(settings.memoryGuidance), history, [...refs]])).digest('hex');
      const had = key ? cache?.get(key) : undefined;
      if (had !== undefined) return { ...base, used: had, source: 'count' };
      const { messages } = await expandAttachments(history, refs, (id) => store.getAttachment(conv.id, id));
      const answer = await tc.client.beta.messages.countTokens({
        model,
        system: systemPrompt(settings.memoryGuidance),
        messages,
        tools: [{ type: 'memory_20250818', name: 'memory' }],
      });
      const used: unknown = answer.input_tokens;
      // A count that is not a plausible whole number is no count: the meter shows the last usage instead.
      if (typeof used === 'number' && Number.isSafeInteger(used) && used >= 0 && used <= MAX_WINDOW) {
        if (cache && key) {
          cache.set(key, used);
          if (cache.size > COUNTS_KEPT) cache.delete(cache.keys().next().value!);
        }
        return { ...base, used, source: 'count' };
      }
    } catch {
      // Fall back to the last usage: a meter that is a turn behind beats none.
    }
  }
  const last = [...conv.transcript].reverse().find((e) => e.role === 'assistant' && e.usage);
  if (last?.role === 'assistant' && last.usage) {
    const u = last.usage;
    return { ...base, used: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens, source: 'usage' };
  }
  return { ...base, used: 0, source: 'none' };
}
