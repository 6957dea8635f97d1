/**
 * Weakening a protection or replacing the API key is main's to allow: with
 * the passphrase, or after the user agrees in main's own dialog (which the
 * harness answers: Cancel unless a test says otherwise). Driven as a person
 * would, by keyboard, and played as a hostile page calling `window.mnemo`.
 */
import { expect, test } from '@playwright/test';
import { getApiKey, loadSettings, saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import { startFakeAnthropic } from '../fake-anthropic/server';
import { PASSPHRASE, type FreshApp, readyApp } from './helpers';

const OWNER_KEY = 'sk-ant-api03-OwnersKey-1234';
const NEW_KEY = 'sk-ant-api03-ReplacementKey-5678';
const EVIL_KEY = 'sk-ant-api03-AttackersKey-6666';

let app: FreshApp;
test.afterEach(async () => app.cleanup());

async function start(opts: { confirmChanges?: boolean; anthropicBaseURL?: string } = {}) {
  app = await readyApp(opts);
  await setApiKey(app.session.unlocked(), OWNER_KEY);
  await app.page.getByRole('tab', { name: 'Settings' }).click();
}

test('weakening the secret guard asks for the passphrase in place, keeps the choice, and saves once main has it', async () => {
  await start();
  const { page } = app;
  // The guard's three choices are a radio group (no drop-down), operated by arrow keys like any radio group.
  const guard = page.getByRole('group', { name: /looks like a secret/ });
  await expect(guard.getByRole('radio')).toHaveCount(3);
  await expect(page.locator('section[aria-labelledby="behaviour"] select')).toHaveCount(0);
  await expect(guard.getByRole('radio', { name: 'Block it (recommended)' })).toBeChecked();
  await guard.getByRole('radio', { name: 'Block it (recommended)' }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(guard.getByRole('radio', { name: 'Store it with the secret redacted' })).toBeChecked();
  await page.keyboard.press('ArrowDown');
  const allow = guard.getByRole('radio', { name: 'Allow it' });
  await expect(allow).toBeChecked();
  await expect(allow).toBeFocused();
  await page.getByLabel('Max tokens per reply').fill('3100');
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).focus();
  await page.keyboard.press('Enter');

  // Main asked the user in its own dialog (cancelled here), then the window asks for the passphrase.
  const ask = page.getByRole('alertdialog', { name: 'Save with passphrase' });
  await expect(ask).toContainText(/needs your passphrase/);
  await expect(ask).toContainText(/secret/);
  expect(app.consents).toHaveLength(1);
  const field = ask.getByLabel('Passphrase (to allow this change)');
  await expect(field).toBeFocused();
  expect((await loadSettings(app.session.unlocked())).guardMode).toBe('block');

  await page.keyboard.type('not my passphrase');
  await page.keyboard.press('Enter');
  await expect(ask.getByRole('alert')).toContainText(/passphrase/i);
  await expect(allow).toBeChecked();
  await expect(page.getByLabel('Max tokens per reply')).toHaveValue('3100');

  await field.fill(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  await expect(ask).toHaveCount(0);
  expect(await loadSettings(app.session.unlocked())).toMatchObject({ guardMode: 'allow', maxTokens: 3100 });
});

test('turning auto-lock off goes through once the user allows it in main’s own dialog', async () => {
  await start({ confirmChanges: true });
  const { page } = app;
  await page.getByLabel(/idle minutes/).fill('0');
  await page.getByRole('button', { name: 'Save security settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  expect(app.consents.map((q) => q.detail)).toEqual([expect.stringMatching(/auto-lock off/i)]);
  expect((await loadSettings(app.session.unlocked())).autoLockMinutes).toBe(0);
});

test('Escape leaves a weakening unsaved and what was typed in place; a stronger setting saves without asking', async () => {
  await start();
  const { page } = app;
  await page.getByLabel(/idle minutes/).fill('45');
  await page.getByRole('button', { name: 'Save security settings' }).click();
  const ask = page.getByRole('alertdialog', { name: 'Save with passphrase' });
  await expect(ask.getByLabel('Passphrase (to allow this change)')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(ask).toHaveCount(0);
  await expect(page.getByLabel(/idle minutes/)).toHaveValue('45');
  expect((await loadSettings(app.session.unlocked())).autoLockMinutes).toBe(10);

  await page.getByLabel(/idle minutes/).fill('5');
  await page.getByRole('button', { name: 'Save security settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  expect((await loadSettings(app.session.unlocked())).autoLockMinutes).toBe(5);
});

test('replacing the stored API key asks for the passphrase and keeps the typed key until it is given', async () => {
  // The new key is tested with the API first (this one accepts only NEW_KEY), then main asks for the passphrase.
  const fake = await startFakeAnthropic({ apiKey: NEW_KEY });
  try {
    await start({ anthropicBaseURL: fake.baseURL });
    const { page } = app;
    const keyField = page.getByLabel('Anthropic API key');
    await keyField.fill(NEW_KEY);
    const listed = fake.extra.modelListCalls;
    await keyField.press('Enter');
    const ask = page.getByRole('alertdialog', { name: 'Save key with passphrase' });
    await expect(ask).toContainText(/Replace the API key/);
    // The key was tested (one models request) before the passphrase was asked for.
    expect(fake.extra.modelListCalls).toBe(listed + 1);
    await expect(keyField).toHaveValue(NEW_KEY);
    expect(await getApiKey(app.session.unlocked())).toBe(OWNER_KEY);
    await page.keyboard.type(PASSPHRASE);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'API key saved in the vault.' })).toBeVisible();
    await expect(keyField).toHaveValue('');
    expect(await getApiKey(app.session.unlocked())).toBe(NEW_KEY);
  } finally {
    await fake.close();
  }
});

test('a hostile page cannot swap or remove the API key or weaken any protection through window.mnemo', async () => {
  await start();
  const { page } = app;
  const vault = () => app.session.unlocked();
  await saveSettings(vault(), { approvalMode: true });
  const before = await loadSettings(vault());
  const answers = await page.evaluate(async (evil) => {
    const m = window.mnemo;
    return [
      await m.settingsSetApiKey({ apiKey: evil }),
      await m.settingsSetApiKey({ apiKey: null }),
      await m.settingsSetApiKey({ apiKey: evil, passphrase: 'guess-1' }),
      await m.settingsSet({ autoLockMinutes: 0 }),
      await m.settingsSet({ autoLockMinutes: 1440 }),
      await m.settingsSet({ approvalMode: false }),
      await m.settingsSet({ guardMode: 'allow' }),
      await m.settingsSet({ historyDepth: 1 }),
      await m.settingsSet({ historyDepth: 1, passphrase: 'guess-2' }),
      await m.settingsSet({ guardMode: 'redact', model: 'claude-opus-4-1' }),
    ].map((r) => (r.ok ? 'ok' : r.error.code));
  }, EVIL_KEY);
  expect(answers).toEqual(['NEEDS_CONSENT', 'NEEDS_CONSENT', 'BAD_PASSPHRASE', 'NEEDS_CONSENT', 'NEEDS_CONSENT', 'NEEDS_CONSENT', 'NEEDS_CONSENT', 'NEEDS_CONSENT', 'BAD_PASSPHRASE', 'NEEDS_CONSENT']);
  expect(await getApiKey(vault())).toBe(OWNER_KEY);
  expect(await loadSettings(vault())).toEqual(before);
  expect(vault().historyDepth()).toBe(20);
});
