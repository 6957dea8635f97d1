/** The renderer's only door to the main process: `window.mnemo`, typed by the IPC contract. */
import type { CallArgs, CallName, CallResult, EventName, EventPayload, MnemoApi, Result } from '../../electron/shared/ipc';

declare global {
  interface Window {
    mnemo: MnemoApi;
  }
}

/** A failed call, with the code main chose and a message meant for the user. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls main and unwraps the Result envelope; failures throw ApiError. */
export async function call<K extends CallName>(name: K, ...args: CallArgs<K>): Promise<CallResult<K>> {
  const fn = window.mnemo[name] as unknown as (...a: CallArgs<K>) => Promise<Result<CallResult<K>>>;
  const r = await fn(...args);
  if (!r.ok) throw new ApiError(r.error.code, r.error.message);
  return r.value;
}

export function on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void {
  return window.mnemo.on(event, listener);
}

/** A message for any error, for showing in the UI. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong. Try again.';
}
