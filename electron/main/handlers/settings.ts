/** Handlers for settings. The API key goes in and never comes back out: the window only learns whether one is set. */
import { createClient } from '../../core/chat/client';
import { mapChatError } from '../../core/chat/errors';
import { hasApiKey, loadSettings, saveSettings, setApiKey } from '../../core/chat/settings-store';
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
    settingsSet: async (patch) => {
      await saveSettings(s.unlocked(), patch);
      return publicSettings();
    },
    settingsSetApiKey: async ({ apiKey }) => {
      const vault = s.unlocked();
      await setApiKey(vault, apiKey);
      return keyStatus(vault);
    },
    settingsTestConnection: async () => {
      const tc = await createClient(s.unlocked(), { env: s.ctx.env, maxRetries: 0 });
      if (!tc) return { ok: false, message: 'No API key is set.' };
      try {
        await tc.client.messages.create({ model: tc.connection.model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });
        return { ok: true, message: `Connected; ${tc.connection.model} answered.` };
      } catch (err) {
        return { ok: false, message: mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : []).message };
      }
    },
  };
}
