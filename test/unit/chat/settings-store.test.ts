import { afterEach, expect, it } from 'vitest';
import { getApiKey, hasApiKey, loadSettings, resolveConnection, saveSettings, setApiKey } from '../../../electron/core/chat/settings-store';
import { defaultSettings } from '../../../electron/shared/settings';
import { VaultError } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

it('settings default until saved, then persist; invalid ones are refused and change nothing', async () => {
  t = await tempVault();
  expect(await loadSettings(t.vault)).toEqual(defaultSettings());
  await saveSettings(t.vault, { model: 'claude-opus-4-5', historyDepth: 5 });
  await expect(saveSettings(t.vault, { autoLockMinutes: -3 })).rejects.toBeInstanceOf(VaultError);
  const v = await t.reopen();
  expect(await loadSettings(v)).toMatchObject({ model: 'claude-opus-4-5', historyDepth: 5, autoLockMinutes: 10 });
  expect(v.historyDepth()).toBe(5);
});

it('two saves at once keep both changes (fresh clone fc21: a security save beside a passphrase-confirmed one lost the latter)', async () => {
  t = await tempVault();
  await Promise.all([saveSettings(t.vault, { maxTokens: 2500, approvalMode: true }), saveSettings(t.vault, { autoLockMinutes: 3 }), saveSettings(t.vault, { historyDepth: 7 })]);
  expect(await loadSettings(t.vault)).toMatchObject({ maxTokens: 2500, approvalMode: true, autoLockMinutes: 3, historyDepth: 7 });
});

it('one stored field that no longer validates falls back alone', async () => {
  t = await tempVault();
  await t.vault.internal.putJSON('settings', { model: 'm', autoLockMinutes: 'soon' });
  expect(await loadSettings(t.vault)).toMatchObject({ model: 'm', autoLockMinutes: 10 });
});

it('the API key is stored apart from settings, and the environment overrides it', async () => {
  t = await tempVault();
  expect(await hasApiKey(t.vault)).toBe(false);
  await setApiKey(t.vault, '  sk-ant-stored  ');
  expect(await hasApiKey(t.vault)).toBe(true);
  expect(await getApiKey(t.vault)).toBe('sk-ant-stored');
  expect(JSON.stringify(await loadSettings(t.vault))).not.toContain('sk-ant');
  expect(await resolveConnection(t.vault, {})).toMatchObject({ apiKey: 'sk-ant-stored', model: defaultSettings().model });
  expect(await resolveConnection(t.vault, { ANTHROPIC_API_KEY: 'sk-env', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' })).toMatchObject({ apiKey: 'sk-env', baseURL: 'http://127.0.0.1:9' });
  await setApiKey(t.vault, null);
  expect(await getApiKey(t.vault)).toBeUndefined();
});
