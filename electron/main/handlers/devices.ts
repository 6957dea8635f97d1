/** Handlers for the computers of a synced vault: Settings → "This vault on other computers" (core/vault/devices.ts). */
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function devicesHandlers(s: AppSession): HandlersFor<'devicesList' | 'devicesRename' | 'devicesForget'> {
  return {
    devicesList: async () => {
      const vault = s.unlocked();
      // What the sync engine brought since the unlock is read first, so the list is as of now.
      if (vault.internal.scheme?.() === 2) await vault.ingest();
      return { shared: vault.internal.scheme?.() === 2, devices: await vault.devices() };
    },
    devicesRename: async ({ id, name }) => {
      await s.unlocked().renameDevice(id, name);
      return null;
    },
    devicesForget: async ({ id }) => {
      await s.unlocked().forgetDevice(id);
      return null;
    },
  };
}
