/** Handlers for what the window asks of the desktop: copying the recovery key and opening a link. Main decides both. */
import { VaultError } from '../../core/vault/types';
import { openLink } from '../links';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { m } from '../../core/i18n/message';

export function windowHandlers(s: AppSession): HandlersFor<'clipboardWriteRecoveryKey' | 'openLink'> {
  return {
    clipboardWriteRecoveryKey: async () => {
      s.unlocked();
      // Only the key main itself just handed out can be copied: the window cannot put other text there through this call.
      const key = s.shownRecoveryKey;
      if (!key) throw new VaultError('NOT_FOUND', m('errors:vault.recoveryKeyNotCopyable'));
      if (!s.ctx.clipboard) return { copied: false };
      await s.ctx.clipboard.copy(key);
      return { copied: true };
    },
    openLink: async ({ href }) => ({ opened: s.ctx.links ? await openLink(href, s.ctx.links) : false }),
  };
}
