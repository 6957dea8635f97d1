/**
 * "Open a vault…": which folder the vault is in. The folder comes only from
 * main's own picker, never from the window, so a compromised page cannot point
 * the app at a folder of its choosing; the window learns only the folder's last
 * name and whether it is the default one.
 */
import path from 'node:path';
import { m } from '../../core/i18n/message';
import { folderContents } from '../../core/vault/folder';
import { nodeFs } from '../../core/vault/fsio';
import { isInsideVault } from '../../core/transfer';
import { VaultError } from '../../core/vault/types';
import type { VaultFolder } from '../../shared/ipc-values';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

/** The folder in use, as the window may know it. */
export function folderOf(s: AppSession): VaultFolder {
  return { isDefault: s.dir === s.defaultDir, name: path.basename(s.dir), fromStart: s.dir === s.startedWith };
}

export function vaultFolderHandlers(s: AppSession): HandlersFor<'vaultFolder' | 'vaultOpenFolder' | 'vaultUseDefaultFolder'> {
  /** One picker at a time: a page asking again and again gets a refusal, not a stack of dialogs. */
  let picking = false;
  return {
    vaultFolder: async () => folderOf(s),
    vaultOpenFolder: async () => {
      const pick = s.ctx.pickVaultFolder;
      if (!pick) throw new VaultError('INVALID', m('errors:vaultFolder.cannotChoose'));
      if (picking) throw new VaultError('IN_USE', m('errors:vaultFolder.picking'));
      picking = true;
      let chosen: string | undefined;
      try {
        chosen = await pick();
      } finally {
        picking = false;
      }
      if (chosen === undefined) return { outcome: 'cancelled' as const, folder: folderOf(s) };
      const dir = path.resolve(chosen);
      // Read before anything changes: a folder refused leaves the vault open as it was.
      const what = await folderContents(dir, nodeFs).catch(() => {
        throw new VaultError('IO', m('errors:vaultFolder.unreadable'));
      });
      if (what === 'headless') throw new VaultError('DAMAGED', m('errors:vaultFolder.headless'));
      if (what === 'other') throw new VaultError('INVALID', m('errors:vaultFolder.notEmpty'));
      // An empty folder among the open vault's own files (devices/…, say) would put a vault inside a vault.
      if (what !== 'vault' && dir !== s.dir && (await isInsideVault(s.dir, dir))) throw new VaultError('INVALID', m('errors:vaultFolder.insideVault'));
      // A vault is this computer's choice at once; an empty folder (or one a creation left unfinished) once a vault is made in it.
      await s.moveTo(dir, what === 'vault' ? 'now' : 'onCreate');
      return { outcome: what === 'vault' ? ('vault' as const) : ('empty' as const), folder: folderOf(s) };
    },
    vaultUseDefaultFolder: async () => {
      await s.moveTo(s.defaultDir, 'now');
      return folderOf(s);
    },
  };
}
