/**
 * The Anthropic client for one turn, from the vault's settings (environment
 * overrides), with a fetch that reports each rate-limit or overload response
 * before the SDK's own bounded retry waits it out.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ChatErrorCode } from '../../shared/chat';
import type { VaultApi } from '../vault/types';
import { retryAfterSeconds } from './errors';
import { resolveConnection, type Connection } from './settings-store';

export interface ClientHooks {
  /** Called when a response will be retried by the SDK. */
  onRetry?: (info: { attempt: number; inSeconds: number; reason: ChatErrorCode }) => void;
  /** Retries after 429/529/5xx/connection errors (default 2). */
  maxRetries?: number;
  env?: NodeJS.ProcessEnv;
}

export interface TurnClient {
  client: Anthropic;
  connection: Connection;
}

/** Undefined when no API key is set anywhere. */
export async function createClient(vault: VaultApi, hooks: ClientHooks = {}): Promise<TurnClient | undefined> {
  const connection = await resolveConnection(vault, hooks.env);
  if (!connection.apiKey) return undefined;
  const maxRetries = hooks.maxRetries ?? 2;
  let attempt = 0;
  const observingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if ((res.status === 429 || res.status === 529 || res.status >= 500) && attempt < maxRetries) {
      attempt++;
      hooks.onRetry?.({ attempt, inSeconds: retryAfterSeconds(res.headers) ?? Math.min(8, 2 ** attempt / 2), reason: res.status === 429 ? 'rate_limited' : res.status === 529 ? 'overloaded' : 'server' });
    } else if (res.ok) {
      attempt = 0;
    }
    return res;
  };
  const client = new Anthropic({
    apiKey: connection.apiKey,
    // The SDK sends both headers; the key is the vault's or the environment's, never logged.
    ...(connection.baseURL ? { baseURL: connection.baseURL } : {}),
    maxRetries,
    fetch: observingFetch,
    logLevel: 'off',
  });
  return { client, connection };
}
