/**
 * The models the API offers (`client.models.list`), kept in the vault so the
 * picker works offline and refreshed only when asked, and the context meter:
 * how many tokens a conversation uses of its model's window.
 */
import type { ContextUse, ModelInfo, ModelList } from '../../shared/projects';
import { Conversations, type StoredConversation } from './conversations';
import { attachmentsOf, expandAttachments, type AttachmentBytes } from './attachments-send';
import { VaultError, type VaultApi } from '../vault/types';
import { createClient } from './client';
import { mapChatError } from './errors';
import { answerDangling, sendable } from './history';
import { systemPrompt } from './prompt';
import { loadSettings } from './settings-store';

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
  if (!opts.refresh && stored.fetched > 0) return stored;
  const tc = await createClient(vault, { ...(opts.env ? { env: opts.env } : {}), maxRetries: opts.maxRetries ?? 2 });
  if (!tc) throw new VaultError('INVALID', 'No Anthropic API key is set. Add one in Settings (or set ANTHROPIC_API_KEY), then refresh the models.');
  const models: ModelInfo[] = [];
  try {
    for await (const m of tc.client.models.list({ limit: 100 })) {
      const window = typeof m.max_input_tokens === 'number' && m.max_input_tokens > 0 ? m.max_input_tokens : contextWindowOf(m.id);
      models.push({ id: m.id, displayName: m.display_name || m.id, contextWindow: window });
    }
  } catch (err) {
    throw new VaultError('IO', `The models could not be fetched: ${mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : []).message}`);
  }
  const list: ModelList = { models, fetched: Date.now() };
  await vault.internal.putJSON(KEY, list);
  return list;
}

/**
 * Tokens `conv` uses of the window of the model in Settings: the API's count
 * of the history as the next turn would send it (countTokens), or, when that
 * cannot be had (no key, offline), the input of the last reply's usage.
 * Attachments are counted as sent (their bytes from `opts.attachments`, by
 * default the vault's), never as the stored history's references.
 */
export async function contextUse(vault: VaultApi, conv: StoredConversation, opts: { env?: NodeJS.ProcessEnv; attachments?: AttachmentBytes } = {}): Promise<ContextUse> {
  const settings = await loadSettings(vault);
  const window = contextWindowOf(settings.model, (await storedModels(vault)).models);
  const base = { window, model: settings.model };
  if (conv.messages.length === 0) return { ...base, used: 0, source: 'none' };
  const tc = await createClient(vault, { ...(opts.env ? { env: opts.env } : {}), maxRetries: 0 });
  if (tc) {
    try {
      const store = opts.attachments ?? new Conversations(vault);
      const { messages } = await expandAttachments(answerDangling(sendable(conv.messages)), attachmentsOf(conv.transcript), (id) => store.getAttachment(conv.id, id));
      const counted = await tc.client.beta.messages.countTokens({
        model: settings.model,
        system: systemPrompt(settings.memoryGuidance),
        messages,
        tools: [{ type: 'memory_20250818', name: 'memory' }],
      });
      return { ...base, used: counted.input_tokens, source: 'count' };
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
