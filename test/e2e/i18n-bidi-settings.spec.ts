/**
 * Names others wrote, in Arabic and Hebrew mixed with Latin and digits, in the "Go to" palette and
 * Settings → other apps (issue 21's bidi isolation): each is isolated and reads right to left inside
 * itself, and a memory's path keeps its folders in order, left to right, segment by segment.
 */
import { expect, test, type Locator } from '@playwright/test';
import { saveSettings } from '../../electron/core/chat/settings-store';
import type { MemoryBackend } from '../../electron/core/mcp/backend';
import { connectApp } from '../../electron/core/mcp/channel-client';
import { readyApp, type FreshApp } from './helpers';
import { seedConversation } from './seed';

const FOLDER = 'ملاحظات 2024';
const FILE = 'שלום-world 7.md';
const PATH = `/memories/${FOLDER}/${FILE}`;
const APP_NAME = 'مساعد Code 3';

/** Each segment of a path shown as a BidiPath: its text, and whether it resolved right to left. */
const segments = (path: Locator) =>
  path.locator('bdi').evaluateAll((els) => els.map((el) => ({ text: el.textContent, rtl: el.matches(':dir(rtl)'), direction: getComputedStyle(el).direction })));

let app: FreshApp;
let backend: MemoryBackend | undefined;
test.afterEach(async () => {
  await backend?.close();
  await app.cleanup();
});

test('a right-to-left path and names stay isolated, in order, in the palette and the calls of other apps', async () => {
  app = await readyApp();
  const { page } = app;
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write' });
  const vaultId = app.session.unlocked().vaultId;
  await expect.poll(async () => (backend ??= await connectApp({ stateDir: app.stateDir, vaultId, via: 'mcp', client: APP_NAME, readOnly: false })) !== undefined).toBe(true);
  expect(await backend!.call({ command: 'create', path: PATH, file_text: 'x' })).toMatchObject({ is_error: false });
  await seedConversation(app.session.unlocked(), 'תכנון 2025 plan', 1);
  await page.reload();
  await expect(page.locator('header.topbar button.lock')).toBeVisible();

  // The palette: the path segment by segment, left to right as a whole; the title isolated.
  await page.keyboard.press('Control+k');
  await page.getByRole('combobox', { name: 'Conversation, memory, project or setting' }).fill('שלום');
  const path = page.getByRole('listbox', { name: 'Places to go' }).getByRole('option').first().locator('.bidi-path');
  await expect(path).toBeVisible();
  expect(await path.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
  expect(await segments(path)).toEqual([
    { text: 'memories', rtl: false, direction: 'ltr' },
    { text: FOLDER, rtl: true, direction: 'rtl' },
    { text: FILE, rtl: true, direction: 'rtl' },
  ]);
  expect((await path.textContent())!).toBe(PATH);
  await page.getByRole('combobox', { name: 'Conversation, memory, project or setting' }).fill('תכנון');
  const title = page.getByRole('listbox', { name: 'Places to go' }).getByRole('option').first().locator('bdi.palette-label');
  await expect(title).toHaveText('תכנון 2025 plan');
  expect(await title.evaluate((el) => el.matches(':dir(rtl)'))).toBe(true);
  await page.keyboard.press('Escape');

  // Settings → other apps: the app's name isolated, the path of its call in segments.
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Use this memory in other apps' });
  const row = section.getByRole('table').getByRole('row').nth(1);
  await expect(row).toContainText(APP_NAME);
  expect(await row.locator('td').nth(1).locator('bdi').evaluate((el) => el.matches(':dir(rtl)'))).toBe(true);
  const called = row.locator('.bidi-path');
  expect(await segments(called)).toEqual([
    { text: 'memories', rtl: false, direction: 'ltr' },
    { text: FOLDER, rtl: true, direction: 'rtl' },
    { text: FILE, rtl: true, direction: 'rtl' },
  ]);
  // The known app's name in its label, isolated too.
  await expect(section.getByRole('combobox', { name: `What ${APP_NAME} may do` })).toBeVisible();
});
