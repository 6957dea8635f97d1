/**
 * The Anthropic client for one turn, from the vault's settings and key
 * (environment overrides); the endpoint only from ANTHROPIC_BASE_URL. The SDK
 * does the retrying; a fetch wrapper decides each wait first, so the user is told about it, a server asking for a long wait is
 * answered at once instead of hanging the turn, and tests can keep waits short.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ChatErrorCode } from '../../shared/chat';
import type { VaultApi } from '../vault/types';
import { retryAfterSeconds } from './errors';
import { boundedResponse } from './reply-limits';
import { resolveConnection, type Connection } from './settings-store';

/** The API's own endpoint, used when ANTHROPIC_BASE_URL is not set. */
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface ClientHooks {
  /** Called when a response will be retried by the SDK. */
  onRetry?: (info: { attempt: number; inSeconds: number; reason: ChatErrorCode }) => void;
  /** Retries after 408/409/429/5xx/connection errors (default 2). */
  maxRetries?: number;
  /** A server asking for a longer wait than this gets no retry: the user sees the error and the wait (default 60). */
  maxRetryWaitSeconds?: number;
  /** Cap on the exponential backoff used when the server names no wait (default 8000 ms, as the SDK). */
  backoffCapMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Cut any response body past this many bytes (see reply-limits.ts); `onCut` is told first. */
  maxResponseBytes?: number;
  onCut?: () => void;
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
  const client = new Anthropic({
    apiKey: connection.apiKey,
    // Always explicit, so the SDK never reads an endpoint from anywhere but the environment we were given.
    baseURL: connection.baseURL ?? DEFAULT_BASE_URL,
    maxRetries,
    fetch: retryingFetch(maxRetries, hooks),
    // The SDK's logger could print request headers; nothing of a turn is logged.
    logLevel: 'off',
  });
  return { client, connection };
}

/**
 * Wraps fetch so that every response the SDK is about to retry carries an
 * explicit `retry-after-ms` (the wait we chose and reported), and one whose
 * requested wait is too long carries `x-should-retry: false`. Mirrors the SDK's
 * own rules for what it retries, so the counts stay in step.
 */
export function retryingFetch(maxRetries: number, hooks: Pick<ClientHooks, 'onRetry' | 'maxRetryWaitSeconds' | 'backoffCapMs' | 'maxResponseBytes' | 'onCut'>): typeof fetch {
  const maxWaitMs = (hooks.maxRetryWaitSeconds ?? 60) * 1000;
  const capMs = hooks.backoffCapMs ?? 8000;
  let attempt = 0;
  // Every body is bounded, an error's too: the SDK reads an error body whole before it decides anything.
  const bound = (res: Response) => (hooks.maxResponseBytes === undefined ? res : boundedResponse(res, hooks.maxResponseBytes, hooks.onCut ?? (() => undefined)));
  return async (input, init) => {
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (err) {
      // The SDK retries a failed connection with its own backoff; count it so later responses agree with it.
      if (!init?.signal?.aborted && attempt < maxRetries) {
        attempt++;
        hooks.onRetry?.({ attempt, inSeconds: roundSeconds(backoffMs(attempt, capMs)), reason: 'network' });
      }
      throw err;
    }
    if (!retryable(res)) {
      if (res.ok) attempt = 0;
      return bound(res);
    }
    if (attempt >= maxRetries) return bound(res);
    const askedMs = retryAfterMs(res.headers);
    if (askedMs !== undefined && askedMs > maxWaitMs) return bound(withHeaders(res, { 'x-should-retry': 'false' }));
    attempt++;
    const waitMs = askedMs ?? backoffMs(attempt, capMs);
    hooks.onRetry?.({ attempt, inSeconds: roundSeconds(waitMs), reason: res.status === 429 ? 'rate_limited' : res.status === 529 ? 'overloaded' : 'server' });
    // The SDK treats a zero wait as "no wait given" and backs off instead; 1 ms is as good as now.
    return bound(withHeaders(res, { 'retry-after-ms': String(Math.max(1, Math.round(waitMs))) }));
  };
}

function retryable(res: Response): boolean {
  const header = res.headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
}

/** The server's wait in ms (retry-after-ms, else retry-after seconds or date). */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = retryAfterSeconds(headers);
  return seconds === undefined ? undefined : seconds * 1000;
}

/** The SDK's schedule (0.5 s doubling, with up to 25 % jitter), capped. */
function backoffMs(attempt: number, capMs: number): number {
  return Math.min(500 * 2 ** (attempt - 1), capMs) * (1 - Math.random() * 0.25);
}

const roundSeconds = (ms: number) => Math.round(ms / 100) / 10;

function withHeaders(res: Response, extra: Record<string, string>): Response {
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
