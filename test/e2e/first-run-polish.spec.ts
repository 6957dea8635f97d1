/**
 * Issue 20, first run and unlock: every passphrase can be shown without
 * losing what was typed, the strength meter is empty until rated and its
 * colour always goes with its word, the card does not jump as the meter
 * fills, and "Connect to Claude" tests a key before saving it — a refused key
 * or an unreachable API is said at the key field, and nothing is saved.
 * One app for the whole spec: the steps follow one first run.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { getApiKey } from '../../electron/core/chat/settings-store';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, freshApp, PASSPHRASE, type FreshApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
});
test.afterAll(async () => {
  await app?.cleanup();
  await fake?.close();
});

const meter = (page: Page) => page.getByRole('meter', { name: 'Passphrase strength' });
const card = (page: Page) => page.getByRole('form', { name: 'Create your memory vault' });

/** The bar's fill colour, the word's colour, and the colour the level's token stands for, all as computed rgb(). */
async function colours(page: Page): Promise<{ level: string; word: string; bar: string; text: string; token: string }> {
  return page.locator('.strength').evaluate((el) => {
    const level = el.getAttribute('data-level') ?? '';
    const bar = getComputedStyle(el.querySelector('.bar')!).backgroundColor;
    const wordEl = el.querySelector('.strength-word')!;
    // The token's own value, resolved the way the browser paints it.
    const probe = document.createElement('span');
    probe.style.color = `var(--strength-${level})`;
    el.append(probe);
    const token = getComputedStyle(probe).color;
    probe.remove();
    return { level, word: wordEl.textContent ?? '', bar, text: getComputedStyle(wordEl).color, token };
  });
}

async function box(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

/** Where a box starts and how wide it is: what must not move while text below grows. */
const placeOf = (b: { x: number; y: number; width: number }) => ({ x: b.x, y: b.y, width: b.width });

test('show/hide on the new passphrase keeps the text and the caret, flips the type, and is reachable by Tab', async () => {
  const { page } = app;
  const field = page.getByLabel('Passphrase', { exact: true });
  const show = page.getByRole('button', { name: 'Show passphrase', exact: true });
  // One button whose words say what it does next: "Hide passphrase" while the passphrase is shown.
  const hide = page.getByRole('button', { name: 'Hide passphrase', exact: true });
  await expect(field).toBeFocused();
  await expect(hide).toHaveCount(0);
  await page.keyboard.type('amber-kettle');
  // The caret after "amber": a pointer press on Show leaves focus and caret in the field.
  for (let i = 0; i < '-kettle'.length; i++) await page.keyboard.press('ArrowLeft');
  const width = (await box(show)).width;
  await show.click();
  await expect(field).toHaveAttribute('type', 'text');
  await expect(hide).toBeVisible();
  expect(await hide.evaluate((el) => (el as HTMLElement).innerText), 'the word shown is Hide').toMatch(/^Hide/);
  await expect(show).toHaveCount(0);
  expect((await box(hide)).width, 'the toggle keeps its width as its word changes').toBe(width);
  await expect(field).toBeFocused();
  await page.keyboard.type('X');
  await expect(field).toHaveValue('amberX-kettle');
  await hide.click();
  await expect(field).toHaveAttribute('type', 'password');
  await expect(field).toHaveValue('amberX-kettle');

  // By keyboard: Tab from the field lands on its toggle; Space flips it and focus stays there.
  await field.focus();
  await page.keyboard.press('Tab');
  await expect(show).toBeFocused();
  await page.keyboard.press('Space');
  await expect(field).toHaveAttribute('type', 'text');
  await expect(hide).toBeFocused();
  await page.keyboard.press('Space');
  await expect(field).toHaveAttribute('type', 'password');

  // The confirm field has its own toggle, named for it; they do not flip each other.
  const confirmShow = page.getByRole('button', { name: 'Show confirm passphrase' });
  await confirmShow.click();
  await expect(page.getByLabel('Confirm passphrase')).toHaveAttribute('type', 'text');
  await expect(field).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Hide confirm passphrase' }).click();
  await field.fill('');
  await expectAccessible(page, 'the create screen with show/hide');
});

test('the meter is empty until a passphrase is rated; bar and word share the level’s colour; the card does not move', async () => {
  const { page } = app;
  const field = page.getByLabel('Passphrase', { exact: true });
  await expect(field).toHaveValue('');
  await expect(meter(page)).toHaveAttribute('aria-valuenow', '0');
  await expect(meter(page)).toHaveAttribute('aria-valuetext', 'not rated yet');
  // The field was just cleared by the test before: the bar shrinks to nothing through its short width transition.
  await expect.poll(async () => (await box(meter(page).locator('.bar'))).width).toBe(0);
  // Not a placeholder word ("Strength: —."): guidance until there is something to rate.
  await expect(page.getByText(/^Four or more unrelated words make a strong passphrase; its strength shows here as you type\.$/)).toBeVisible();
  await expect(page.getByText(/^Strength:/)).toHaveCount(0);
  const before = await box(card(page));

  await field.fill('Football2024!!');
  await expect(meter(page)).toHaveAttribute('aria-valuetext', /weak/);
  const weak = await colours(page);
  expect(['too-weak', 'weak']).toContain(weak.level);
  expect(weak.word).toBe(weak.level === 'weak' ? 'weak' : 'too weak');
  expect(weak.bar).toBe(weak.token);
  expect(weak.text).toBe(weak.token);
  expect((await box(meter(page).locator('.bar'))).width).toBeGreaterThan(0);
  await expect(page.getByText(/^Strength: (too )?weak$/)).toBeVisible();
  // The card grows downward with the advice; its top and sides stay where they were.
  expect(placeOf(await box(card(page)))).toEqual(placeOf(before));

  await field.fill(PASSPHRASE);
  await expect(meter(page)).toHaveAttribute('aria-valuetext', 'strong');
  const strong = await colours(page);
  expect(strong).toMatchObject({ level: 'strong', word: 'strong' });
  expect(strong.bar).toBe(strong.token);
  expect(strong.text).toBe(strong.token);
  expect(strong.bar).not.toBe(weak.bar);
  await expect(page.getByText(/^Strength: strong$/)).toBeVisible();
  expect(placeOf(await box(card(page)))).toEqual(placeOf(before));

  // Dark: the same agreement with the dark tokens.
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours(page);
  expect(dark.bar).toBe(dark.token);
  expect(dark.text).toBe(dark.token);
  expect(dark.bar).not.toBe(strong.bar);
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a key the API refuses is said at the key field with focus back in it, and nothing is saved; then a good key saves', async () => {
  const { page } = app;
  await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
  await page.getByRole('button', { name: 'Create vault' }).click();
  const key = (await page.getByLabel('Recovery key').textContent())!.trim();
  await page.getByLabel(/last group/).fill(key.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
  await expect(page.getByRole('heading', { name: 'Connect to Claude' })).toBeVisible();

  const keyField = page.getByLabel('Anthropic API key');
  const form = page.getByRole('form', { name: 'API key' });
  await expect(keyField).toBeFocused();
  await keyField.fill('sk-ant-api03-NotTheRightKey-000');
  await keyField.press('Enter');
  await expect(form.getByRole('alert')).toContainText('did not accept this API key (401)');
  await expect(form.getByRole('alert')).toContainText('Nothing was saved');
  await expect(keyField).toBeFocused();
  await expect(keyField).toHaveAttribute('aria-invalid', 'true');
  await expect(keyField).toHaveAccessibleDescription(/did not accept this API key/);
  await expect(keyField).toHaveValue('sk-ant-api03-NotTheRightKey-000');
  await expect(page.getByText('API key:')).toContainText('not set');
  expect(await getApiKey(app.session.unlocked())).toBeUndefined();
  await expect(form.getByRole('button', { name: 'Save without checking' })).toHaveCount(0);
  await expectAccessible(page, 'the connect step with a refused key');

  // Typing again clears the complaint; the right key is checked, accepted and saved.
  await keyField.fill(fake.apiKey);
  await expect(form.getByRole('alert')).toHaveCount(0);
  await keyField.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toHaveText('API key saved in the vault. Anthropic accepted it.');
  await expect(keyField).toHaveValue('');
  expect(await getApiKey(app.session.unlocked())).toBe(fake.apiKey);
  expect(fake.requests).toHaveLength(0);
});

test('an API that drops the connection is reported as a network problem, apart from a bad key; the key can be saved unchecked', async () => {
  const { page } = app;
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  fake.extra.modelsHangUp = true;
  const keyField = page.getByLabel('Anthropic API key');
  const form = page.getByRole('form', { name: 'API key' });
  const other = 'sk-ant-api03-OfflineKey-4242';
  await keyField.fill(other);
  await keyField.press('Enter');
  await expect(form.getByRole('alert')).toContainText('Could not reach the Anthropic API');
  await expect(form.getByRole('alert')).not.toContainText('did not accept');
  await expect(keyField).toBeFocused();
  expect(await getApiKey(app.session.unlocked())).toBe(fake.apiKey);

  // Saving it anyway replaces a stored key: main asks for the passphrase, then stores it unchecked.
  await form.getByRole('button', { name: 'Save without checking' }).click();
  const ask = page.getByRole('alertdialog', { name: 'Save key with passphrase' });
  await expect(ask.getByLabel('Passphrase (to allow this change)')).toBeFocused();
  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toHaveText('API key saved in the vault, without a check.');
  expect(await getApiKey(app.session.unlocked())).toBe(other);
  fake.extra.modelsHangUp = false;
});
