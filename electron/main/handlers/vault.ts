/** Handlers for creating, unlocking, locking and maintaining the vault. */
import { requireStrongPassphrase } from '../../core/passphrase-strength';
import { copyVault, exportPlaintext, isFreshTarget } from '../../core/transfer';
import { moveAsidePreProjectsMemory } from '../../core/projects/legacy';
import { VaultError, type UnlockReport } from '../../core/vault/types';
import type { Vault } from '../../core/vault/vault';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { keyed, m } from '../../core/i18n/message';

/**
 * Runs a key rotation and keeps its new recovery key for Copy. A lock in the
 * middle (idle, suspend, the user) wipes the keys the rotation reads with, and
 * the vault then reports its files as damaged though they are not: that is
 * said as what it is. A key whose rotation finished is always returned (the
 * old one is revoked), but not kept for Copy if the vault locked meanwhile.
 */
async function rotating(s: AppSession, run: (vault: Vault) => Promise<string>): Promise<string> {
  const locks = s.locks;
  let key: string;
  try {
    key = await run(s.unlocked());
  } catch (err) {
    if (s.locks !== locks) throw new VaultError('LOCKED', m('errors:vault.lockedBeforeRecoveryKey'));
    throw err;
  }
  // The rotation finished, so the old key is revoked: the window must still get the new one, but a lock has forgotten what Copy may copy.
  if (s.locks === locks) s.shownRecoveryKey = key;
  return key;
}

/** What opening a vault fixes and tells: a pre-projects memory in the projects' folder is moved aside (not on a rolled-back vault, which must stay as found). */
async function afterUnlock(vault: Vault, report: UnlockReport): Promise<UnlockReport> {
  if (report.rolledBack) return report;
  const moved = await moveAsidePreProjectsMemory(vault);
  return moved ? { ...report, notices: [...(report.notices ?? []), moved.text], noticeKeys: [...(report.noticeKeys ?? []), keyed(moved)] } : report;
}

/** The unlock's report, once the session's watchers (the channel for other apps) are told the vault is open. */
function announced(s: AppSession, report: UnlockReport): UnlockReport {
  s.announceUnlocked();
  return report;
}

export function vaultHandlers(s: AppSession): HandlersFor<
  'vaultStatus' | 'vaultCreate' | 'vaultUnlock' | 'vaultUnlockWithRecoveryKey' | 'vaultLock' | 'vaultChangePassphrase' | 'vaultSetPassphrase' | 'vaultAcceptRollback' | 'vaultNewRecoveryKey' | 'vaultRotateKeys' | 'vaultVerify' | 'vaultBackup' | 'vaultExportPlaintext'
> {
  return {
    vaultStatus: async () => ({ exists: await s.exists(), unlocked: s.isUnlocked(), rolledBack: s.isUnlocked() && s.unlocked().isRolledBack() }),
    vaultCreate: async ({ passphrase }) => {
      await requireStrongPassphrase(passphrase);
      const recoveryKey = await s.create(passphrase);
      s.announceUnlocked();
      return { recoveryKey };
    },
    vaultUnlock: async ({ passphrase }) => announced(s, await s.serialUnlock(async (v) => afterUnlock(v, await s.guesses.attempt(() => v.unlock(passphrase))))),
    vaultUnlockWithRecoveryKey: async ({ recoveryKey }) => announced(s, await s.serialUnlock(async (v) => afterUnlock(v, await s.guesses.attempt(() => v.unlockWithRecoveryKey(recoveryKey))))),
    vaultLock: async () => {
      await s.lock('user');
      return null;
    },
    vaultChangePassphrase: async ({ current, next }) => {
      s.unlocked();
      await requireStrongPassphrase(next);
      await s.guesses.attempt(() => s.unlocked().changePassphrase(current, next));
      return null;
    },
    vaultSetPassphrase: async ({ next }) => {
      // Once per unlock, claimed before the first await so two racing calls cannot both set one; a failed try gives the claim back.
      if (s.passphraseSetSinceUnlock) {
        throw new VaultError('INVALID', m('errors:vault.passphraseAlreadySet'));
      }
      s.passphraseSetSinceUnlock = true;
      try {
        await requireStrongPassphrase(next);
        await s.unlocked().setPassphrase(next);
      } catch (err) {
        s.passphraseSetSinceUnlock = false;
        throw err;
      }
      return null;
    },
    vaultAcceptRollback: async ({ passphrase }) => {
      const vault = s.unlocked();
      await s.guesses.attempt(() => vault.verifyPassphrase(passphrase));
      await vault.acceptRollback();
      return null;
    },
    // A recovery key is a lasting credential: only the holder of the passphrase may mint one.
    vaultNewRecoveryKey: async ({ passphrase }) => ({ recoveryKey: await s.guesses.attempt(() => rotating(s, (v) => v.newRecoveryKey(passphrase))) }),
    vaultRotateKeys: async ({ passphrase }) => ({ recoveryKey: await s.guesses.attempt(() => rotating(s, (v) => v.rotateKeys(passphrase))) }),
    vaultVerify: async () => s.unlocked().verify(),
    vaultBackup: async () => {
      const vault = s.unlocked();
      const target = await s.ctx.pickDirectory('backup');
      if (!target) return { saved: false };
      if (!(await isFreshTarget(target))) throw new VaultError('INVALID', m('errors:transfer.backupNotEmpty'));
      await copyVault(vault, target);
      return { saved: true };
    },
    vaultExportPlaintext: async ({ passphrase }) => {
      const vault = s.unlocked();
      // Plaintext leaves the vault only for the holder of the passphrase, checked before any dialog opens.
      await s.guesses.attempt(() => vault.verifyPassphrase(passphrase));
      const target = await s.ctx.pickDirectory('export');
      if (!target) return { saved: false, count: 0 };
      if (!(await isFreshTarget(target))) throw new VaultError('INVALID', m('errors:transfer.exportNotEmpty'));
      return { saved: true, count: await exportPlaintext(vault, target) };
    },
  };
}
