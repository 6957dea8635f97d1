/**
 * The packaged shape of the app in real Electron: the secure window, the preload's
 * API, and the first-run → lock → unlock path through the real ipcMain.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test, type ElectronApplication } from '@playwright/test';
import { createVault, lock, unlock } from '../e2e/helpers';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSPHRASE = 'quiet-otter-harbour-lantern-71';
let app: ElectronApplication;
let userData: string;

test.beforeAll(async () => {
  userData = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-electron-'));
  app = await electron.launch({
    args: [ROOT, `--user-data-dir=${userData}`],
    env: { ...process.env, XDG_STATE_HOME: path.join(userData, 'state') },
  });
});

test.afterAll(async () => {
  await app?.close();
  await fs.rm(userData, { recursive: true, force: true });
});

test('the window is served from app:// with no Node in the page and only window.mnemo exposed', async () => {
  const page = await app.firstWindow();
  expect(page.url()).toMatch(/^app:\/\/mnemo\//);
  expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
  expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
  expect(await page.evaluate(() => Object.keys((window as unknown as { mnemo: object }).mnemo).length)).toBeGreaterThan(10);
});

test('navigation away and window.open are refused', async () => {
  const page = await app.firstWindow();
  const before = page.url();
  await page.evaluate(() => {
    window.open('https://example.com/');
    location.href = 'https://example.com/';
  });
  await page.waitForTimeout(500);
  expect(page.url()).toBe(before);
  expect(app.windows()).toHaveLength(1);
});

test('create a vault, lock, and unlock again through the real IPC', async () => {
  const page = await app.firstWindow();
  await createVault(page, PASSPHRASE);
  expect(await fs.stat(path.join(userData, 'vault', 'vault.json')).then(() => true)).toBe(true);
  await page.screenshot({ path: path.join(ROOT, 'test-results/electron/created.png') });
  await lock(page);
  await unlock(page, PASSPHRASE);
});
