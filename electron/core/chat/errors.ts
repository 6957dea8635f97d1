/**
 * Turns whatever a turn threw into what the user can do about it. Messages
 * never carry the API key, a host path or a raw stack.
 */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { ChatErrorCode } from '../../shared/chat';
import { VaultError } from '../vault/types';

export interface MappedError {
  code: ChatErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

/** Seconds from a retry-after header (seconds or an HTTP date), if present and sane. */
export function retryAfterSeconds(headers: Headers | undefined | null): number | undefined {
  const raw = headers?.get('retry-after-ms');
  if (raw && Number.isFinite(Number(raw))) return Math.max(0, Math.ceil(Number(raw) / 1000));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, Math.ceil(n));
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : undefined;
}

/**
 * Maps an error thrown by the SDK (or the vault, or the network) to a code and
 * an actionable message. `secrets` (the API key in use) are cut out of any text
 * the server sent: the endpoint can quote the key back, whatever its shape.
 */
export function mapChatError(err: unknown, secrets: readonly string[] = []): MappedError {
  if (err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return { code: 'cancelled', message: 'Stopped. The reply so far is kept; send a message to continue.' };
  }
  if (err instanceof APIConnectionError) {
    return { code: 'network', message: 'Could not reach the Anthropic API. Check your internet connection (or ANTHROPIC_BASE_URL, if you set it), then retry.' };
  }
  if (err instanceof APIError) {
    // The body is the server's JSON, whatever its shape: only strings are read from it.
    const body = (err.error as { error?: { type?: unknown; message?: unknown } } | null | undefined)?.error;
    const type = typeof body?.type === 'string' ? body.type : undefined;
    const apiMessage = typeof body?.message === 'string' ? body.message : '';
    const status = err.status;
    if (status === 401) return { code: 'auth', message: 'The API key was refused (401). Check the key in Settings, or set a new one.' };
    if (status === 403) return { code: 'permission', message: 'This API key may not use this model or feature (403). Check the model in Settings or your Anthropic plan.' };
    if (status === 429) {
      const after = retryAfterSeconds(err.headers);
      return { code: 'rate_limited', message: `Rate limited by the Anthropic API (429); try again ${after !== undefined ? waitText(after) : 'shortly'}.`, ...(after !== undefined ? { retryAfterSeconds: after } : {}) };
    }
    if (status === 529 || type === 'overloaded_error') {
      const after = retryAfterSeconds(err.headers);
      return { code: 'overloaded', message: `Anthropic’s API is overloaded right now (529). Retry ${after !== undefined ? waitText(after) : 'in a minute'}.`, ...(after !== undefined ? { retryAfterSeconds: after } : {}) };
    }
    if (status === 404) return { code: 'unknown', message: 'The API does not know this model or endpoint (404). Check the model name in Settings (and ANTHROPIC_BASE_URL, if you set it).' };
    if (status === 413 || /prompt is too long|too many tokens|context (window|length)/i.test(apiMessage)) {
      return { code: 'too_large', message: 'This conversation is too long for the model. Start a new conversation, or turn on compaction in Settings.' };
    }
    if (status !== undefined && status >= 500) return { code: 'server', message: `The Anthropic API had an internal error (${status}). Retry in a moment.` };
    if (status === 400) return { code: 'unknown', message: `The Anthropic API refused the request (400): ${scrub(apiMessage, secrets)}` };
    return { code: 'unknown', message: `The Anthropic API answered with an error${status ? ` (${status})` : ''}.` };
  }
  if (err instanceof VaultError && err.code === 'LOCKED') return { code: 'locked', message: 'The vault was locked during the reply. Unlock it and send again.' };
  if (err instanceof Error && /terminated|socket|ECONNRESET|fetch failed|premature|stream|JSON|Unexpected/i.test(`${err.message} ${String((err as { cause?: { code?: string } }).cause?.code ?? '')}`)) {
    return { code: 'network', message: 'The connection to the Anthropic API broke off in the middle of the reply. Retry.' };
  }
  return { code: 'unknown', message: 'Something went wrong while answering. Your message is kept; retry.' };
}

/** "now", "in 30 s", "in 5 min", "in 2 h". */
function waitText(seconds: number): string {
  if (seconds <= 0) return 'now';
  if (seconds < 90) return `in ${seconds} s`;
  if (seconds < 90 * 60) return `in ${Math.round(seconds / 60)} min`;
  return `in ${Math.round(seconds / 3600)} h`;
}

/** How much of a secret, quoted anywhere in a word, is enough to cut the whole word. */
const SECRET_RUN = 8;

/**
 * Error text from the API can quote request content, the key included; keep
 * it short, and cut every word that looks like an Anthropic key or carries
 * SECRET_RUN or more characters of one of `secrets` in a row.
 */
function scrub(text: string, secrets: readonly string[]): string {
  const runs = new Set<string>();
  for (const s of secrets) for (let i = 0; i + SECRET_RUN <= s.length; i++) runs.add(s.slice(i, i + SECRET_RUN));
  const leaks = (word: string) => {
    for (let i = 0; i + SECRET_RUN <= word.length; i++) if (runs.has(word.slice(i, i + SECRET_RUN))) return true;
    return false;
  };
  return text
    .slice(0, 4000)
    .replace(/sk-ant-[A-Za-z0-9_-]+/g, '[key]')
    .replace(/\S+/g, (word) => (leaks(word) ? '[key]' : word))
    .slice(0, 300);
}
