/** Handlers for settings. The API key goes in and never comes back out: the window only learns whether one is set. */
import { createClient } from '../../core/chat/client';
import { mapChatError, messageOfMapped } from '../../core/chat/errors';
import { checkApiKey } from '../../core/chat/key-check';
import { weakenings } from '../../core/chat/settings-policy';
import { assertApiKeyShape, hasApiKey, loadSettings, saveSettings, setApiKey } from '../../core/chat/settings-store';
import { requireConsent } from './consent';
import { m, said } from '../../core/i18n/message';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function settingsHandlers(s: AppSession): HandlersFor<'settingsGet' | 'settingsSet' | 'settingsSetApiKey' | 'settingsTestConnection'> {
  // The window learns where a key comes from (never the key), so it does not say "not set" while ANTHROPIC_API_KEY is in use.
  const keyStatus = async (vault: ReturnType<AppSession['unlocked']>) => {
    const stored = await hasApiKey(vault);
    return { hasApiKey: stored, apiKeySource: s.ctx.env.ANTHROPIC_API_KEY ? ('environment' as const) : stored ? ('vault' as const) : ('none' as const) };
  };
  const publicSettings = async () => {
    const vault = s.unlocked();
    return { ...(await loadSettings(vault)), ...(await keyStatus(vault)) };
  };
  return {
    settingsGet: publicSettings,
    settingsSet: async ({ passphrase, ...patch }) => {
      const vault = s.unlocked();
      const weaker = weakenings(await loadSettings(vault), patch);
      if (weaker.length) await requireConsent(s, weaker, passphrase);
      await saveSettings(vault, patch);
      return publicSettings();
    },
    settingsSetApiKey: async ({ apiKey, passphrase, check }) => {
      const vault = s.unlocked();
      // A first key is free; replacing or removing one would send (or stop) every later turn on someone else's account.
      const removing = apiKey === null || apiKey.trim() === '';
      // Asked before the passphrase: a mistyped key is reported at once, not after the user has typed the passphrase too.
      if (check && !removing) {
        assertApiKeyShape(apiKey);
        await checkApiKey(apiKey.trim(), s.ctx.env);
      }
      if (await hasApiKey(vault)) {
        await requireConsent(s, [removing ? m('errors:change.apiKeyRemove') : m('errors:change.apiKeyReplace')], passphrase);
      }
      await setApiKey(vault, apiKey);
      return keyStatus(vault);
    },
    settingsTestConnection: async () => {
      const tc = await createClient(s.unlocked(), { env: s.ctx.env, maxRetries: 0 });
      if (!tc) return { ok: false, ...said(m('errors:connection.noKey')) };
      try {
        await tc.client.messages.create({ model: tc.connection.model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });
        return { ok: true, ...said(m('errors:connection.ok', { model: tc.connection.model })) };
      } catch (err) {
        return { ok: false, ...said(messageOfMapped(mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : []))) };
      }
    },
  };
}
