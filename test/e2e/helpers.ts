/** Steps the specs share, done as a person would: labels and roles, keyboard and clicks. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { launchApp, type App, type LaunchOptions } from './harness';

export const PASSPHRASE = 'amber-kettle-orbit-sonnet-42';
const SCREENS = path.resolve(import.meta.dirname, '../../test-results/screens');

/** A fresh user-data directory and the app on it; `cleanup` closes both. */
export async function freshApp(opts: Partial<LaunchOptions> = {}): Promise<App & { userDataDir: string; cleanup(): Promise<void> }> {
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-e2e-'));
  const app = await launchApp({ userDataDir, ...opts });
  return {
    ...app,
    userDataDir,
    cleanup: async () => {
      await app.close();
      await fs.rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot for review under test-results/screens/. */
export async function shot(page: Page, name: string): Promise<void> {
  await fs.mkdir(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
}

/** First run: choose the passphrase, keep the recovery key, arrive in the app. Returns the recovery key. */
export async function createVault(page: Page, passphrase = PASSPHRASE, screenshots = false): Promise<string> {
  await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  await page.getByLabel('Confirm passphrase').fill(passphrase);
  if (screenshots) await shot(page, '01-create-vault');
  await page.getByRole('button', { name: 'Create vault' }).click();
  const keyBox = page.getByLabel('Recovery key');
  await expect(keyBox).toBeVisible();
  const recoveryKey = (await keyBox.textContent())!.trim();
  if (screenshots) await shot(page, '02-recovery-key');
  await page.getByLabel(/last group/).fill(recoveryKey.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
  await passApiKeyStep(page);
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
  return recoveryKey;
}

/** First run asks for the API key after the recovery key; specs that set the key through core pass that step by. */
export async function passApiKeyStep(page: Page): Promise<void> {
  const step = page.getByRole('heading', { name: 'Connect to Claude' });
  await expect(page.getByRole('button', { name: 'Lock', exact: true }).or(step)).toBeVisible();
  if (await step.isVisible()) await page.getByRole('button', { name: /^(Continue|Skip for now)/ }).click();
}

export async function lock(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Lock', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
}

export async function unlock(page: Page, passphrase = PASSPHRASE): Promise<void> {
  await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  await page.getByLabel('Passphrase', { exact: true }).press('Enter');
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
}

export async function openMemories(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Memories' }).click();
  await expect(page.getByRole('button', { name: 'New memory' })).toBeVisible();
}

/** The editor's whole text replaced by typing, as a user would (select all, type). */
export async function typeInEditor(page: Page, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
}
