/**
 * Tests an API key before it is stored: one authenticated request that costs
 * no tokens (the first page of the models list, one model long) against the
 * endpoint chats would use. A refused key and an API that could not be asked
 * fail differently, so the user knows whether to fix the key or the network.
 */
import Anthropic, { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import { VaultError } from '../vault/types';
import { DEFAULT_BASE_URL, retryingFetch } from './client';
import { mapChatError, messageOfMapped } from './errors';
import { m } from '../i18n/message';

/** Long enough for a slow link, short enough that the user is not left waiting on a dead one. */
export const KEY_CHECK_TIMEOUT_MS = 15_000;
/** A models page of one model is a few hundred bytes; a larger answer is cut, not buffered. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * Resolves when the API accepts `apiKey`. Otherwise throws a VaultError:
 * `KEY_REFUSED` when the API refused the key (401, 403), `KEY_UNCHECKED` when
 * it could not be asked or did not answer the question (network down, a
 * server error). Messages never quote the key.
 */
export async function checkApiKey(apiKey: string, env: NodeJS.ProcessEnv, timeoutMs = KEY_CHECK_TIMEOUT_MS): Promise<void> {
  const client = new Anthropic({
    apiKey,
    // Always explicit, as for a turn: the endpoint comes only from the environment main was given.
    baseURL: env.ANTHROPIC_BASE_URL || DEFAULT_BASE_URL,
    maxRetries: 0,
    timeout: timeoutMs,
    fetch: retryingFetch(0, { maxResponseBytes: MAX_ANSWER_BYTES }),
    logLevel: 'off',
  });
  try {
    await client.models.list({ limit: 1 });
  } catch (err) {
    throw keyCheckError(err, apiKey);
  }
}

function keyCheckError(err: unknown, apiKey: string): VaultError {
  if (err instanceof APIError && (err.status === 401 || err.status === 403)) {
    return new VaultError('KEY_REFUSED', err.status === 401 ? m('errors:apiKey.refused401') : m('errors:apiKey.refused403'));
  }
  if (err instanceof APIConnectionError) {
    return new VaultError('KEY_UNCHECKED', m('errors:apiKey.unreachable'));
  }
  // The key was not refused, but not accepted either: say what the API said, in the chat's words.
  return new VaultError('KEY_UNCHECKED', m('errors:apiKey.unchecked', { reason: messageOfMapped(mapChatError(err, [apiKey])) }));
}
