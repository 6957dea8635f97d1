/**
 * Turns whatever a turn threw into what the user can do about it. Messages
 * never carry the API key, a host path or a raw stack.
 */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { ChatErrorCode } from '../../shared/chat';
import { VaultError } from '../vault/types';
import { m, type ErrorKey, type LocalMessage, type MessageParams } from '../i18n/message';

export interface MappedError {
  code: ChatErrorCode;
  /** In English (stored with the reply, logs); `key` and `params` say it in the window's language. */
  message: string;
  key?: ErrorKey;
  params?: MessageParams;
  retryAfterSeconds?: number;
}

/** A mapped error from its code and message (made with m()). */
export function mapped(code: ChatErrorCode, msg: LocalMessage, extra: { retryAfterSeconds?: number } = {}): MappedError {
  return { code, message: msg.text, key: msg.key, ...(msg.params ? { params: msg.params } : {}), ...extra };
}

/** A mapped error as a message to say inside another one (its English when it has no key). */
export function messageOfMapped(e: MappedError): LocalMessage {
  return e.key ? { key: e.key, text: e.message, ...(e.params ? { params: e.params } : {}) } : m('errors:plain', { text: e.message });
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
    return mapped('cancelled', m('errors:chat.cancelled'));
  }
  if (err instanceof APIConnectionError) {
    return mapped('network', m('errors:chat.network'));
  }
  if (err instanceof APIError) {
    // The body is the server's JSON, whatever its shape: only strings are read from it.
    const body = (err.error as { error?: { type?: unknown; message?: unknown } } | null | undefined)?.error;
    const type = typeof body?.type === 'string' ? body.type : undefined;
    const apiMessage = typeof body?.message === 'string' ? body.message : '';
    const status = err.status;
    if (status === 401) return mapped('auth', m('errors:chat.auth'));
    if (status === 403) return mapped('permission', m('errors:chat.permission'));
    if (status === 429) {
      const after = retryAfterSeconds(err.headers);
      return mapped('rate_limited', m('errors:chat.rateLimited', { when: after !== undefined ? waitText(after) : m('errors:chat.wait.shortly') }), after !== undefined ? { retryAfterSeconds: after } : {});
    }
    if (status === 529 || type === 'overloaded_error') {
      const after = retryAfterSeconds(err.headers);
      return mapped('overloaded', m('errors:chat.overloaded', { when: after !== undefined ? waitText(after) : m('errors:chat.wait.aMinute') }), after !== undefined ? { retryAfterSeconds: after } : {});
    }
    if (status === 404) return mapped('unknown', m('errors:chat.notFound'));
    if (status === 413 || /prompt is too long|too many tokens|context (window|length)/i.test(apiMessage)) {
      return mapped('too_large', m('errors:chat.tooLong'));
    }
    if (status !== undefined && status >= 500) return mapped('server', m('errors:chat.server', { status }));
    if (status === 400) return mapped('unknown', m('errors:chat.badRequest', { detail: scrub(apiMessage, secrets) }));
    return mapped('unknown', status ? m('errors:chat.apiErrorStatus', { status }) : m('errors:chat.apiError'));
  }
  if (err instanceof VaultError && err.code === 'LOCKED') return mapped('locked', m('errors:chat.lockedDuring'));
  if (err instanceof Error && /terminated|socket|ECONNRESET|fetch failed|premature|stream|JSON|Unexpected/i.test(`${err.message} ${String((err as { cause?: { code?: string } }).cause?.code ?? '')}`)) {
    return mapped('network', m('errors:chat.brokeOff'));
  }
  return mapped('unknown', m('errors:chat.unknown'));
}

/** "now", "in 30 s", "in 5 min", "in 2 h". */
function waitText(seconds: number): LocalMessage {
  if (seconds <= 0) return m('errors:chat.wait.now');
  if (seconds < 90) return m('errors:chat.wait.seconds', { count: seconds });
  if (seconds < 90 * 60) return m('errors:chat.wait.minutes', { count: Math.round(seconds / 60) });
  return m('errors:chat.wait.hours', { count: Math.round(seconds / 3600) });
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
