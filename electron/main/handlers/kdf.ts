/** "Strengthen key derivation": re-derive the passphrase slot at a higher Argon2id cost, measured on this computer. */
import { calibrateKdf, KDF_CEILING } from '../../core/vault/kdf';
import { VaultError, type KdfParams } from '../../core/vault/types';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { m } from '../../core/i18n/message';

/** The cost to move to: the higher of the current and this computer's calibrated cost in each dimension, else one more pass; never lower, never above the ceiling. */
export function strongerKdf(current: KdfParams, calibrated: KdfParams): KdfParams | undefined {
  const next = { opslimit: Math.max(current.opslimit, calibrated.opslimit), memlimit: Math.max(current.memlimit, calibrated.memlimit) };
  if (next.opslimit === current.opslimit && next.memlimit === current.memlimit) next.opslimit = Math.min(KDF_CEILING.opslimit, current.opslimit + 1);
  return next.opslimit === current.opslimit && next.memlimit === current.memlimit ? undefined : next;
}

export function kdfHandlers(s: AppSession): HandlersFor<'vaultStrengthenKdf'> {
  return {
    vaultStrengthenKdf: async ({ passphrase }) => {
      const vault = s.unlocked();
      await s.guesses.attempt(() => vault.verifyPassphrase(passphrase));
      const next = strongerKdf(vault.passphraseKdf(), await calibrateKdf());
      if (!next) throw new VaultError('INVALID', m('errors:kdf.atMaximum'));
      await vault.changePassphrase(passphrase, passphrase, next);
      return { opslimit: next.opslimit, memlimitMiB: Math.round(next.memlimit / 1024 / 1024) };
    },
  };
}
