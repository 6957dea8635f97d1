/** Handlers for the window's unsaved work (see core/drafts.ts): set or discard one draft, and get them all back after an unlock. */
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function draftHandlers(s: AppSession): HandlersFor<'draftsPut' | 'draftsGet'> {
  return {
    draftsPut: async (change) => {
      await s.drafts.put(s.unlocked(), change);
      return null;
    },
    draftsGet: async () => s.drafts.all(s.unlocked()),
  };
}
