/**
 * A new recovery key on a vault several computers share (format 2, core sync/rotate2.ts): made from Settings by
 * keyboard, it is a key rotation into a new epoch; the old recovery key then opens nothing, the new one and the
 * passphrase open every memory written before.
 */
import { expect, test } from '@playwright/test';
import { expectAccessible, lock, PASSPHRASE, readyApp, type FreshApp } from './helpers';

let app: FreshApp;
test.beforeEach(async () => {
  app = await readyApp({ format2: true });
});
test.afterEach(async () => app.cleanup());

test('a new recovery key in a format-2 vault: the old key is refused, the new one opens what was written before', async () => {
  const { page } = app;
  const vault = app.session.unlocked();
  await vault.memory.writeFile('/memories/before.md', 'written before the new key', { mode: 'create', source: 'user' });
  const old = app.recoveryKey!;
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Show a new recovery key' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Passphrase (to make a new recovery key)')).toBeFocused();
  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByText('A new recovery key was made')).toBeVisible();
  const shown = page.getByRole('status').filter({ hasText: /^[A-Z2-7]{4}(-[A-Z2-7]{1,4})+$/ });
  const fresh = (await shown.textContent())!.trim();
  expect(fresh).not.toBe(old);
  await expectAccessible(page, 'format 2: new recovery key shown');
  await page.getByRole('button', { name: 'I have saved it' }).click();

  await lock(page);
  await page.getByRole('button', { name: /use the recovery key/i }).click();
  await page.getByLabel('Recovery key').fill(old);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  expect(app.session.isUnlocked()).toBe(false);
  await page.getByLabel('Recovery key').fill(fresh);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Choose a new passphrase' })).toBeVisible();
  expect(await app.session.unlocked().memory.readFile('/memories/before.md')).toBe('written before the new key');
  expect(await app.session.unlocked().verify()).toMatchObject({ ok: true });
});
