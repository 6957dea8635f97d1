/** The passphrase strength estimate for the window's meter; the same estimate gates create and change in vault.ts. */
import { assessPassphrase } from '../../core/passphrase-strength';
import type { HandlersFor } from './types';

export function strengthHandlers(): HandlersFor<'passphraseStrength'> {
  return {
    passphraseStrength: async ({ passphrase }) => assessPassphrase(passphrase),
  };
}
