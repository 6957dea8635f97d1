import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { loadSettings } from '../../electron/core/chat/settings-store';
import type { freshApp} from './helpers';
import { lock, PASSPHRASE, shot, unlock, readyApp } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
let picked: string;
test.beforeEach(async () => {
  app = await readyApp({ pickDirectory: async () => picked });
  picked = path.join(app.userDataDir, 'picked');
  await app.page.getByRole('tab', { name: 'Settings' }).click();
});
test.afterEach(async () => app.cleanup());

test('settings are saved in the vault', async () => {
  const { page } = app;
  await page.getByLabel('Max tokens per reply').fill('2500');
  await page.getByLabel(/idle minutes/).fill('3');
  await page.getByLabel(/approval mode/).check();
  await page.getByRole('group', { name: /looks like a secret/ }).getByRole('radio', { name: 'Store it with the secret redacted' }).check();
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  // Redacting instead of blocking weakens the guard: main wants the passphrase for that (settings-consent.spec.ts).
  await page.getByRole('alertdialog', { name: 'Save with passphrase' }).getByLabel(/Passphrase/).fill(PASSPHRASE);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Save security settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved' })).toHaveCount(2);
  expect(await loadSettings(app.session.unlocked())).toMatchObject({ maxTokens: 2500, autoLockMinutes: 3, approvalMode: true, guardMode: 'redact' });
});

test('changing the passphrase: the old one no longer opens the vault, the new one does', async () => {
  const { page } = app;
  const next = 'violet-harbour-compass-tundra-88';
  await page.getByLabel('Current passphrase').fill(PASSPHRASE);
  await page.getByLabel('New passphrase', { exact: true }).fill(next);
  await page.getByLabel('Confirm new passphrase').fill(next);
  await page.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(page.getByRole('status').filter({ hasText: /old passphrase/ })).toBeVisible();
  await shot(page, '41-settings-passphrase-changed');
  await lock(page);
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByRole('button', { name: 'Unlock', exact: true }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await unlock(page, next);
});

test('an encrypted backup goes to the chosen empty folder and holds no plaintext', async () => {
  const { page } = app;
  await app.session.unlocked().memory.writeFile('/memories/backup-me.md', 'Backed-up memory text 5521', { mode: 'create', source: 'user' });
  await page.getByRole('button', { name: /Encrypted backup/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Encrypted backup saved' })).toBeVisible();
  const files = await fs.readdir(picked, { recursive: true });
  expect(files).toContain('vault.json');
  expect(files).not.toContain('.lock');
  for (const f of files) {
    const full = path.join(picked, f);
    if ((await fs.stat(full)).isFile()) expect((await fs.readFile(full)).toString('latin1')).not.toContain('Backed-up memory text');
  }
});

test('plaintext export asks first, warns, and writes each memory as a file', async () => {
  const { page } = app;
  await app.session.unlocked().memory.writeFile('/memories/dir/export-me.md', 'Exported text', { mode: 'create', source: 'user' });
  await page.getByRole('button', { name: /Export as plain text/ }).click();
  const warning = page.getByRole('alertdialog');
  await expect(warning).toContainText('UNENCRYPTED');
  await shot(page, '42-settings-export-warning');
  await warning.getByRole('button', { name: 'Cancel' }).click();
  await expect(fs.access(picked)).rejects.toThrow();

  await page.getByRole('button', { name: /Export as plain text/ }).click();
  // Main checks the passphrase: a wrong one exports nothing.
  await expect(page.getByLabel('Passphrase (to export)')).toBeFocused();
  await page.keyboard.type('not the passphrase');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText(/Wrong passphrase/);
  await expect(fs.access(picked)).rejects.toThrow();
  await page.getByLabel('Passphrase (to export)').fill(PASSPHRASE);
  await page.getByRole('alertdialog').getByRole('button', { name: 'Export unencrypted' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Exported 1 memory as plain text' })).toBeVisible();
  expect(await fs.readFile(path.join(picked, 'dir', 'export-me.md'), 'utf8')).toBe('Exported text');
});

test('a new recovery key replaces the old one', async () => {
  const { page } = app;
  await lock(page);
  await unlock(page);
  await page.getByRole('tab', { name: 'Settings' }).click();
  const old = await app.session.unlocked().newRecoveryKey(PASSPHRASE); // what the user had before (set through core)
  await page.getByRole('button', { name: 'Show a new recovery key' }).click();
  // By keyboard: focus is in the passphrase field; a wrong passphrase mints nothing.
  await expect(page.getByLabel('Passphrase (to make a new recovery key)')).toBeFocused();
  await page.keyboard.type('not the passphrase');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText(/Wrong passphrase/);
  await page.getByLabel('Passphrase (to make a new recovery key)').fill(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByText('A new recovery key was made')).toBeVisible();
  const shown = page.getByRole('status').filter({ hasText: /^[A-Z2-7]{4}(-[A-Z2-7]{1,4})+$/ });
  const fresh = (await shown.textContent())!.trim();
  expect(fresh).not.toBe(old);
  // Copy goes through main, which marks the key concealed (and clears it after a minute).
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(app.clipboard.text).toBe(fresh);
  expect(app.clipboard.markers.map((m) => m.format)).toEqual(['org.nspasteboard.ConcealedType']);
  await page.getByRole('button', { name: 'I have saved it' }).click();
  await expect(shown).toHaveCount(0);

  await lock(page);
  await page.getByRole('button', { name: /use the recovery key/i }).click();
  await page.getByLabel('Recovery key').fill(old);
  await page.getByRole('button', { name: 'Unlock', exact: true }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await page.getByLabel('Recovery key').fill(fresh);
  await page.getByRole('button', { name: 'Unlock', exact: true }).click();
  // The new key opens the vault; a recovery-key unlock then asks for a new passphrase.
  await expect(page.getByRole('heading', { name: 'Choose a new passphrase' })).toBeVisible();
  expect(app.session.isUnlocked()).toBe(true);
});

test('strengthening key derivation asks for the passphrase, raises the cost, and the passphrase still unlocks', async () => {
  const { page } = app;
  const before = app.session.unlocked().passphraseKdf();
  await page.getByRole('button', { name: 'Strengthen key derivation…' }).click();
  const field = page.getByLabel('Passphrase (to strengthen key derivation)');
  await expect(field).toBeFocused();
  await page.keyboard.type('not-the-passphrase-at-all');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText(/does not open this vault|wrong passphrase/i);
  expect(app.session.unlocked().passphraseKdf()).toEqual(before);
  await field.fill(PASSPHRASE);
  await field.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: /Key derivation now uses \d+ passes and \d+ MiB/ })).toBeVisible({ timeout: 60_000 });
  const after = app.session.unlocked().passphraseKdf();
  expect(after.opslimit * after.memlimit).toBeGreaterThan(before.opslimit * before.memlimit);
  await lock(page);
  await unlock(page);
});
