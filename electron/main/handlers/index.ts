/**
 * The handler table for every call in the contract, and `dispatch`, which
 * validates arguments and results with the contract's schemas and answers with
 * a Result envelope. Plain Node: Electron's ipcMain and the test harness both
 * call `dispatch`, so they run exactly the same code.
 */
import { MemoryPathError } from '../../core/memory/paths';
import { VaultError } from '../../core/vault/types';
import { m, type LocalMessage } from '../../core/i18n/message';
import { CALLS, type CallName, type Result, type ResultError } from '../../shared/ipc';
import { brokenBound } from '../../shared/limits';
import { ChannelHost, type ChannelHostOptions } from '../channel-host';
import { channelHandlers } from './channel';
import { chatHandlers } from './chat';
import { devicesHandlers } from './devices';
import { draftHandlers } from './drafts';
import { kdfHandlers } from './kdf';
import { memoryHandlers } from './memory';
import { prefsHandlers } from './prefs';
import { projectHandlers } from './projects';
import { reviewHandlers } from './review';
import { AppSession, type HandlerContext } from './session';
import { settingsHandlers } from './settings';
import { strengthHandlers } from './strength';
import type { Handlers } from './types';
import { vaultHandlers } from './vault';
import { vaultFolderHandlers } from './vault-folder';
import { windowHandlers } from './window';
import { parsedEmitter } from '../events';

export type { HandlerContext } from './session';
export { AppSession } from './session';

/**
 * The handler table over a new session. `channel`: serve the local channel for other apps while the vault is
 * unlocked (the app and the e2e harness pass it; without it nothing listens, and its calls answer as if idle).
 */
export function createHandlers(ctx: HandlerContext & { channel?: ChannelHostOptions }): { handlers: Handlers; session: AppSession; channel: ChannelHost } {
  // Every event is parsed against the contract before it can reach the window.
  const session = new AppSession({ ...ctx, emit: parsedEmitter((event, payload) => ctx.emit(event, payload)) });
  const channel = new ChannelHost(session, ctx.channel ?? { serve: false });
  const handlers: Handlers = {
    ...vaultHandlers(session),
    ...vaultFolderHandlers(session),
    ...memoryHandlers(session),
    ...settingsHandlers(session),
    ...chatHandlers(session),
    ...windowHandlers(session),
    ...strengthHandlers(),
    ...kdfHandlers(session),
    ...projectHandlers(session),
    ...prefsHandlers(session),
    ...draftHandlers(session),
    ...reviewHandlers(session),
    ...devicesHandlers(session),
    ...channelHandlers(session, channel),
  };
  return { handlers, session, channel };
}

/** Runs one call: parse the arguments, run the handler, check the result, and wrap any failure as data. */
export async function dispatch(handlers: Handlers, name: CallName, rawArgs: unknown): Promise<Result<unknown>> {
  const spec = CALLS[name];
  const args = spec.args.safeParse(rawArgs);
  if (!args.success) {
    // A size bound says which limit was passed; anything else malformed is simply ignored.
    const bound = brokenBound(args.error);
    return { ok: false, error: bound ? { code: 'LIMIT', ...bound } : { code: 'BAD_INPUT', ...keyed(m('errors:request.malformed')) } };
  }
  try {
    const value = await (handlers[name] as (...a: unknown[]) => Promise<unknown>)(...(args.data as unknown[]));
    // Parsing the result strips any field the contract does not list, so nothing extra can leak out.
    return { ok: true, value: spec.result.parse(value) };
  } catch (err) {
    return { ok: false, error: toError(err) };
  }
}

/** A message made with m(): its English, its key and its parameters, as the envelope carries them. */
function keyed(msg: LocalMessage): Pick<ResultError, 'message' | 'key' | 'params'> {
  return { message: msg.text, key: msg.key, ...(msg.params ? { params: msg.params } : {}) };
}

function toError(err: unknown): ResultError {
  if (err instanceof VaultError) return { code: err.code, message: err.message, ...(err.key ? { key: err.key } : {}), ...(err.params ? { params: err.params } : {}) };
  if (err instanceof MemoryPathError) return { code: 'BAD_PATH', message: err.message, ...(err.local ? keyed(err.local) : {}) };
  return { code: 'INTERNAL', ...keyed(m('errors:request.internal')) };
}
