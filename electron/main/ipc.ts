/**
 * Binds the contract to ipcMain: exactly one handler per channel, each
 * refusing any sender that is not our window's main frame before anything
 * else runs, then the shared dispatch (schema parse → handler → Result).
 */
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { CALLS, CALL_NAMES, type CallName, type Result } from '../shared/ipc';
import { m, said } from '../core/i18n/message';

const REFUSED: Result<never> = { ok: false, error: { code: 'FORBIDDEN', ...said(m('errors:request.forbidden')) } };

/** Registers every call of the contract, each with the shared dispatch. `isTrusted` decides whether a sender is our window's main frame. */
export function registerIpc(dispatch: (name: CallName, args: unknown[]) => Promise<Result<unknown>>, isTrusted: (event: IpcMainInvokeEvent) => boolean): void {
  for (const name of CALL_NAMES) {
    ipcMain.handle(CALLS[name].channel, (event, ...args: unknown[]) => (isTrusted(event) ? dispatch(name, args) : REFUSED));
  }
}
