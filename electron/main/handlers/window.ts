/** Handlers for what the window asks of the desktop: copying the recovery key and opening a link. Main decides both. */
import { VaultError } from '../../core/vault/types';
import { openLink } from '../links';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function windowHandlers(s: AppSession): HandlersFor<'clipboardWriteRecoveryKey' | 'openLink'> {
  return {
    clipboardWriteRecoveryKey: async () => {
      s.unlocked();
      // Only the key main itself just handed out can be copied: the window cannot put other text there through this call.
      const key = s.shownRecoveryKey;
      if (!key) throw new VaultError('NOT_FOUND', 'The recovery key can be copied only in the first minutes after it is shown. Copy it by hand from the screen, or make a new one in Settings.');
      if (!s.ctx.clipboard) return { copied: false };
      await s.ctx.clipboard.copy(key);
      return { copied: true };
    },
    openLink: async ({ href }) => ({ opened: s.ctx.links ? await openLink(href, s.ctx.links) : false }),
  };
}
