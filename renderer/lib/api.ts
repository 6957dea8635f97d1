/** The renderer's only door to the main process: `window.mnemo`, typed by the IPC contract. */
import type { CallArgs, CallName, CallResult, EventName, EventPayload, MessageParams, MnemoApi, Result } from '../../electron/shared/ipc';
import { i18n, translateKey } from './i18n';

declare global {
  interface Window {
    mnemo: MnemoApi;
  }
}

/** A failed call, with the code main chose, its English message, and (where main has one) the message's catalog key and parameters. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly key?: string,
    readonly params?: MessageParams,
  ) {
    super(message);
  }
}

/** Calls main and unwraps the Result envelope; failures throw ApiError. */
export async function call<K extends CallName>(name: K, ...args: CallArgs<K>): Promise<CallResult<K>> {
  const fn = window.mnemo[name] as unknown as (...a: CallArgs<K>) => Promise<Result<CallResult<K>>>;
  const r = await fn(...args);
  if (!r.ok) throw new ApiError(r.error.code, r.error.message, r.error.key, r.error.params);
  return r.value;
}

export function on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void {
  return window.mnemo.on(event, listener);
}

/**
 * Something main said (an error in an event, a notice, a refusal): in the window's language when it
 * came with a key the catalogs know, else main's English.
 */
export function said(s: { message: string; key?: string | undefined; params?: MessageParams | undefined }): string {
  return (s.key && translateKey(s.key, s.params)) || s.message;
}

/**
 * A message for any error, for showing in the UI: main's key and parameters said in the window's
 * language when main sent a key the catalogs know, else main's English message.
 */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return (err.key && translateKey(err.key, err.params)) || err.message;
  if (err instanceof Error && err.message) return err.message;
  return i18n.t('common:error.unknown');
}
