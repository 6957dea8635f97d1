/**
 * Issue 18: "Open a vault…" — a vault kept in a folder a sync app carries, opened from the unlock and create screens
 * and from Settings, by keyboard, with main's folder picker scripted. The choice is kept on this computer across a
 * restart; a refused or cancelled choice changes nothing; the window cannot name a folder itself.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { launchApp, TEST_KDF, type App } from './harness';
import { createVault, expectAccessible, freshApp, PASSPHRASE, readyApp, shot, unlock, type FreshApp } from './helpers';

const OTHER_PASSPHRASE = 'copper willow 7731 harbour signal drift';
const cleanups: Array<() => Promise<void>> = [];
test.afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tmp(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rm(d, { recursive: true, force: true }));
  return d;
}

/** A picker that gives these answers in turn (undefined: the user cancelled), and how many times it was shown. */
function scriptedPicker(answers: Array<string | undefined>) {
  const picker = { shown: 0, answers, pick: async () => (picker.shown++, picker.answers.shift()) };
  return picker;
}

/** Presses Tab until `name`'s button has focus (as a keyboard user reaches it), then Enter. */
async function tabToAndPress(page: Page, name: string | RegExp): Promise<void> {
  const button = page.getByRole('button', { name, exact: typeof name === 'string' });
  for (let i = 0; i < 12 && !(await button.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(button).toBeFocused();
  await page.keyboard.press('Enter');
}

test('from Settings while unlocked: cancel and a refused folder change nothing; a vault elsewhere opens after the lock and is kept across a restart; the default folder comes back', async () => {
  const synced = path.join(await tmp('mnemo-sync-'), 'mnemo-vault');
  const made = await Vault.create(synced, OTHER_PASSPHRASE, { kdf: TEST_KDF, stateDir: await tmp('mnemo-other-state-') });
  await made.vault.memory.writeFile('/memories/elsewhere.md', 'from the synced vault', { mode: 'create', source: 'user' });
  await made.vault.close();
  const other = await tmp('mnemo-not-a-vault-');
  await fs.writeFile(path.join(other, 'notes.txt'), 'not a vault');
  const picker = scriptedPicker([undefined, other, synced]);
  const app: FreshApp = await readyApp({ pickVaultFolder: picker.pick });
  /** The app started again on the same user-data folder. */
  const restarted: { app?: App } = {};
  cleanups.push(async () => {
    await restarted.app?.close();
    await app.cleanup();
  });
  const { page, session } = app;

  // An unsent message, typed just before going to Settings: the switch's lock keeps it in this vault.
  await page.getByRole('textbox', { name: 'Message' }).fill('Typed before the switch 4471');
  await page.keyboard.press('ControlOrMeta+3');
  const open = page.getByRole('button', { name: 'Open a vault…' });
  const folder = page.getByRole('group', { name: 'Vault folder' });
  await expect(folder).toContainText("The vault is in this computer's default folder.");
  await expect(page.getByRole('button', { name: 'Use the default folder' })).toHaveCount(0);
  await open.focus();

  // Cancelled: still unlocked, in Settings, with nothing said.
  await page.keyboard.press('Enter');
  await expect.poll(() => picker.shown).toBe(1);
  await expect(open).toBeFocused();
  expect(session.isUnlocked()).toBe(true);
  await expect(folder.getByRole('alert')).toHaveCount(0);

  // A folder with other files: refused, said in place, nothing changed.
  await page.keyboard.press('Enter');
  await expect(folder.getByRole('alert')).toContainText('That folder holds other files and no Mnemo vault, so nothing was changed.');
  await expect(open).toBeFocused();
  expect(session.isUnlocked()).toBe(true);
  expect(session.dir).toBe(path.join(app.userDataDir, 'vault'));
  expect(await fs.readdir(other)).toEqual(['notes.txt']);
  await expectAccessible(page, 'the settings with a refused vault folder');
  await shot(page, '70-vault-folder-refused');

  // A vault: this one is locked first, and the unlock screen is for the other one, its passphrase field focused.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  await expect(page.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await expect(page.getByRole('group', { name: 'Vault folder' })).toContainText('The vault is in the folder mnemo-vault.');
  expect(session.isUnlocked()).toBe(false);
  expect(session.dir).toBe(synced);
  await expectAccessible(page, 'the unlock screen of a vault in another folder');
  await shot(page, '71-unlock-vault-elsewhere');
  await page.keyboard.type(OTHER_PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
  expect(await session.unlocked().memory.readFile('/memories/elsewhere.md')).toBe('from the synced vault');

  // Restarted: the same folder is opened, without asking again.
  await app.close();
  const second = (restarted.app = await launchApp({ userDataDir: app.userDataDir, pickVaultFolder: picker.pick }));
  const again = second.page;
  await expect(again.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  await expect(again.getByRole('group', { name: 'Vault folder' })).toContainText('The vault is in the folder mnemo-vault.');
  expect(second.session.dir).toBe(synced);

  // Back to the default folder, by keyboard from the passphrase field: its own vault's unlock screen, kept after another restart.
  await again.getByLabel('Passphrase', { exact: true }).focus();
  await tabToAndPress(again, 'Use the default folder');
  await expect(again.getByRole('group', { name: 'Vault folder' })).toContainText("The vault is in this computer's default folder.");
  await expect(again.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await unlock(again, PASSPHRASE);
  expect(second.session.dir).toBe(path.join(app.userDataDir, 'vault'));
  await expect(again.getByRole('textbox', { name: 'Message' })).toHaveValue('Typed before the switch 4471');
  expect(picker.shown).toBe(3);
});

test('first run: Open a vault… on an empty synced folder makes the new vault there, kept across a restart', async () => {
  const empty = await tmp('mnemo-empty-');
  await fs.mkdir(path.join(empty, '.stfolder'));
  const picker = scriptedPicker([empty]);
  const app = await freshApp({ pickVaultFolder: picker.pick });
  /** The app started again on the same user-data folder. */
  const restarted: { app?: App } = {};
  cleanups.push(async () => {
    await restarted.app?.close();
    await app.cleanup();
  });
  const { page } = app;
  await expect(page.getByRole('heading', { name: 'Create your memory vault' })).toBeVisible();
  await expect(page.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await tabToAndPress(page, 'Open a vault…');

  // Offered for a new vault: the create screen again, for that folder, its first field focused.
  await expect(page.getByRole('group', { name: 'Vault folder' })).toContainText(`The vault is in the folder ${path.basename(empty)}.`);
  await expect(page.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await expectAccessible(page, 'the create screen for a chosen folder');
  await shot(page, '72-create-in-chosen-folder');
  await createVault(page);
  expect(await fs.readdir(empty)).toContain('vault.json');
  await expect(fs.stat(path.join(app.userDataDir, 'vault'))).rejects.toMatchObject({ code: 'ENOENT' });

  await app.close();
  const second = (restarted.app = await launchApp({ userDataDir: app.userDataDir }));
  await expect(second.page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  expect(second.session.dir).toBe(empty);
  await unlock(second.page);
});

test('the page cannot name a folder: window.mnemo calls given a path are refused and the picker is never shown', async () => {
  const attacker = await tmp('mnemo-attacker-');
  await (await Vault.create(attacker, OTHER_PASSPHRASE, { kdf: TEST_KDF, stateDir: await tmp('mnemo-other-state-') })).vault.close();
  const picker = scriptedPicker([]);
  const app = await readyApp({ pickVaultFolder: picker.pick });
  cleanups.push(() => app.cleanup());
  const answers = await app.page.evaluate(async (dir) => {
    const mnemo = (window as unknown as { mnemo: Record<string, (...a: unknown[]) => Promise<{ ok: boolean; error?: { code: string } }>> }).mnemo;
    return [await mnemo.vaultOpenFolder!(dir), await mnemo.vaultOpenFolder!({ dir }), await mnemo.vaultUseDefaultFolder!(dir), await mnemo.prefsSet!({ vaultFolder: dir })];
  }, attacker);
  expect(answers.slice(0, 3).map((a) => a.error?.code)).toEqual(['BAD_INPUT', 'BAD_INPUT', 'BAD_INPUT']);
  expect(picker.shown).toBe(0);
  expect(app.session.dir).toBe(path.join(app.userDataDir, 'vault'));
  expect(app.session.isUnlocked()).toBe(true);
  await expect(fs.stat(path.join(app.userDataDir, 'vault-folder.json'))).rejects.toMatchObject({ code: 'ENOENT' });
});
