/** "Settings in sections": each section is saved on its own, with its status beside its button. */
import { expect, test, type Locator } from '@playwright/test';
import { loadSettings } from '../../electron/core/chat/settings-store';
import type { freshApp} from './helpers';
import { expectAccessible, PASSPHRASE, readyApp } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
test.beforeEach(async () => {
  app = await readyApp();
  await app.page.getByRole('tab', { name: 'Settings' }).click();
});
test.afterEach(async () => app.cleanup());

async function onSameRow(a: Locator, b: Locator): Promise<void> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  expect(Math.abs(x!.y + x!.height / 2 - (y!.y + y!.height / 2))).toBeLessThan(x!.height);
}

test('Settings has Connection, Claude and memory, and Security sections', async () => {
  const { page } = app;
  for (const name of ['Connection', 'Claude and memory', 'Security']) await expect(page.getByRole('heading', { name, level: 2 })).toBeVisible();
  await expectAccessible(page, 'settings');
});

test('at 1280×800 Settings is a list of its sections beside a readable column, centred; the list takes each section by keyboard', async () => {
  const { page } = app;
  await page.setViewportSize({ width: 1280, height: 800 });
  const list = page.getByRole('navigation', { name: 'Settings sections' });
  // "Other computers" is listed for a vault several computers can write (format 2, the default); it comes a moment
  // after the rest, when main has said so.
  const names = ['Connection', 'Claude and memory', 'Security', 'Vault folder', 'Other apps', 'Other computers', 'Language'];
  await expect(list.getByRole('button')).toHaveText(names);
  const panel = (await page.locator('#panel-settings').boundingBox())!;
  const nav = (await list.boundingBox())!;
  const column = (await page.getByRole('heading', { name: 'Connection', level: 2 }).boundingBox())!;
  // The list on the left of the sections, and the two together centred: no blank half on one side.
  expect(nav.x + nav.width).toBeLessThanOrEqual(column.x);
  const [left, right] = [nav.x - panel.x, panel.x + panel.width - (column.x + column.width)];
  expect(Math.abs(left - right), `margins ${left} and ${right}`).toBeLessThan(60);
  expect(column.width, 'a readable column').toBeLessThanOrEqual(46 * 15 + 1);
  // By keyboard: Tab reaches the list; Enter on a section puts focus on its heading, in view, and marks it current.
  await list.getByRole('button', { name: 'Connection' }).focus();
  for (const name of names.slice(1)) {
    await page.keyboard.press('Tab');
    await expect(list.getByRole('button', { name })).toBeFocused();
  }
  await list.getByRole('button', { name: 'Other apps' }).press('Enter');
  const heading = page.getByRole('heading', { name: 'Use this memory in other apps', level: 2 });
  await expect(heading).toBeFocused();
  await expect(heading).toBeInViewport();
  await expect(list.getByRole('button', { name: 'Other apps' })).toHaveAttribute('aria-current', 'true');
  await expect(list).toBeInViewport();
  await expectAccessible(page, 'settings with its section list');
});

test('saving one section stores only its fields and leaves an unsaved change in another as typed', async () => {
  const { page } = app;
  await page.getByLabel(/idle minutes/).fill('7');
  await page.getByLabel('Max tokens per reply').fill('3001');
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toHaveCount(1);
  expect(await loadSettings(app.session.unlocked())).toMatchObject({ maxTokens: 3001, autoLockMinutes: 10 });
  await expect(page.getByLabel(/idle minutes/)).toHaveValue('7');
  await page.getByRole('button', { name: 'Save security settings' }).click();
  await expect.poll(async () => (await loadSettings(app.session.unlocked())).autoLockMinutes).toBe(7);
});

test('a security action says how it went beside its own button', async () => {
  const { page } = app;
  await page.setViewportSize({ width: 900, height: 650 });
  const next = 'violet-harbour-compass-tundra-88';
  await page.getByLabel('Current passphrase').fill(PASSPHRASE);
  await page.getByLabel('New passphrase', { exact: true }).fill(next);
  await page.getByLabel('Confirm new passphrase').fill(next);
  const button = page.getByRole('button', { name: 'Change passphrase' });
  await button.click();
  const status = page.getByRole('status').filter({ hasText: 'Passphrase changed' });
  await expect(status).toBeInViewport();
  await onSameRow(button, status);
});
