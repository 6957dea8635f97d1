/** The passphrase meter shows main's real estimate, and a weak passphrase never protects a vault. */
import { expect, test } from '@playwright/test';
import { createVault, freshApp, PASSPHRASE } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
test.beforeEach(async () => {
  app = await freshApp();
});
test.afterEach(async () => {
  await app.cleanup();
});

const meter = () => app.page.getByRole('meter', { name: 'Passphrase strength' });

test('Football2024!! and password123456 rate weak with the reason shown, four random words rate strong', async () => {
  const { page } = app;
  const field = page.getByLabel('Passphrase', { exact: true });
  await field.fill('Football2024!!');
  await expect(meter()).toHaveAttribute('aria-valuetext', /weak/);
  await expect(page.getByText(/^Strength: (too )?weak$/)).toBeVisible();
  await field.fill('password123456');
  await expect(meter()).toHaveAttribute('aria-valuetext', 'too weak');
  await expect(page.getByText(/commonly used password/)).toBeVisible();
  await field.fill('Summer2024!Summer');
  await expect(meter()).toHaveAttribute('aria-valuetext', /weak/);
  await field.fill(PASSPHRASE);
  await expect(meter()).toHaveAttribute('aria-valuetext', 'strong');
  // Read as a person would say it: "Strength: strong", with no "OK." tacked on.
  await expect(page.getByText(/^Strength: strong$/)).toBeVisible();
  await expect(page.locator('.strength')).not.toContainText('OK');
  // No blank room under the words: the next field follows at the form's usual spacing.
  const words = await page.getByText(/^Strength: strong$/).boundingBox();
  const next = await page.getByText('Confirm passphrase', { exact: true }).boundingBox();
  expect(next!.y - (words!.y + words!.height), 'the gap under the meter').toBeLessThan(16);
});

test('a weak passphrase submitted before the meter answers is still refused by main, and no vault is made', async () => {
  const { page } = app;
  await page.getByLabel('Passphrase', { exact: true }).fill('Summer2024!Summer');
  await page.getByLabel('Confirm passphrase').fill('Summer2024!Summer');
  await page.getByRole('button', { name: 'Create vault' }).click();
  await expect(page.getByRole('alert')).toContainText(/too weak/);
  expect(await app.session.exists()).toBe(false);
});

test('changing to a weak passphrase is refused and the old passphrase still works', async () => {
  const { page } = app;
  await createVault(page);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByLabel('Current passphrase').fill(PASSPHRASE);
  await page.getByLabel('New passphrase', { exact: true }).fill('Football2024!!');
  await page.getByLabel('Confirm new passphrase').fill('Football2024!!');
  await page.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(page.getByRole('alert')).toContainText(/too weak/);
  app.session.lock('user');
  await expect((await app.session.opened()).unlock(PASSPHRASE)).resolves.toBeTruthy();
});
