/** Handlers for this device's preferences (electron/main/device-prefs.ts); they work while the vault is locked. */
import { loadPrefs, savePrefs } from '../device-prefs';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function prefsHandlers(s: AppSession): HandlersFor<'prefsGet' | 'prefsSet'> {
  // One write at a time, each from the file as the last one left it, so two quick changes cannot undo each other.
  let writing: Promise<unknown> = Promise.resolve();
  return {
    prefsGet: async () => loadPrefs(s.ctx.userDataDir),
    prefsSet: (patch) => {
      const run = writing.then(async () => {
        const next = { ...loadPrefs(s.ctx.userDataDir), ...patch };
        await savePrefs(s.ctx.userDataDir, next);
        return next;
      });
      writing = run.catch(() => undefined);
      return run;
    },
  };
}
