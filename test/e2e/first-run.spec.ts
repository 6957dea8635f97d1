/** Issue 13 item 4: a first run that works — the API key is asked for, its source shown, stale errors cleared. */
import { expect, test } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { createVault, expectAccessible, freshApp, PASSPHRASE } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh | undefined;
let fake: FakeAnthropic;
test.beforeEach(async () => {
  fake = await startFakeAnthropic();
});
test.afterEach(async () => {
  await app?.cleanup();
  await fake.close();
});

async function toRecoveryKeyDone(a: Fresh): Promise<void> {
  const { page } = a;
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
  await page.getByRole('button', { name: 'Create vault' }).click();
  const key = (await page.getByLabel('Recovery key').textContent())!.trim();
  await page.getByLabel(/last group/).fill(key.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
}

test('after the recovery key, first run asks for the API key, links to the console and tests the connection', async () => {
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
  const { page } = app;
  // The whole first run, watched as the hostile-content specs watch the chat (they now start on a ready vault):
  // no request leaves the app's origin, no dialog opens, no CSP or Trusted Types violation is reported.
  const origin = new URL(page.url()).origin;
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()));
  await page.evaluate(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
  await toRecoveryKeyDone(app);
  await expect(page.getByRole('heading', { name: 'Connect to Claude' })).toBeVisible();
  await expect(page.getByLabel('Anthropic API key')).toBeFocused();
  await expectAccessible(page, 'the connect step');
  // Save key is the step's main action (filled with the accent); Skip is a quiet text button, not a full-width one.
  const colours = (name: RegExp) =>
    page.getByRole('button', { name }).evaluate((el) => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--accent)';
      document.body.append(probe);
      const accent = getComputedStyle(probe).color;
      probe.remove();
      const c = getComputedStyle(el);
      return { filled: c.backgroundColor === accent, bare: c.backgroundColor === 'rgba(0, 0, 0, 0)' && c.borderTopColor === 'rgba(0, 0, 0, 0)', width: el.getBoundingClientRect().width, card: el.closest('.card')!.getBoundingClientRect().width };
    });
  expect((await colours(/^Save key$/)).filled, 'Save key is the primary action').toBe(true);
  const skip = await colours(/^Skip for now/);
  expect(skip.filled).toBe(false);
  expect(skip.bare, 'Skip has no fill and no border').toBe(true);
  expect(skip.width, 'Skip is not as wide as the card').toBeLessThan(skip.card * 0.8);
  await page.getByRole('button', { name: 'Get an API key' }).click();
  await expect.poll(() => app!.links.asked.concat(app!.links.opened)).toContain('https://console.anthropic.com/settings/keys');
  const keyField = page.getByLabel('Anthropic API key');
  await keyField.fill(fake.apiKey);
  // The key has the passphrase's Show/Hide toggle: a pasted key can be checked before it is saved.
  await expect(keyField).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Show API key', exact: true }).click();
  await expect(keyField).toHaveAttribute('type', 'text');
  await expect(keyField).toHaveValue(fake.apiKey);
  await expect(keyField).toBeFocused();
  await page.getByRole('button', { name: 'Hide API key', exact: true }).click();
  await expect(keyField).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toBeVisible();
  fake.script(reply(text('.')));
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
});

test('a key from ANTHROPIC_API_KEY is shown as such in Settings, and Test connection works', async () => {
  app = await freshApp({ anthropicBaseURL: fake.baseURL, anthropicApiKey: fake.apiKey });
  const { page } = app;
  await createVault(page);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByText('API key:')).toContainText('from the ANTHROPIC_API_KEY environment variable');
  await expect(page.getByText('API key:')).not.toContainText('not set');
  await expectAccessible(page, 'settings');
  fake.script(reply(text('.')));
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
});

test('the empty chat greets the user and explains memory', async () => {
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
  await createVault(app.page);
  await expect(app.page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  await expect(app.page.getByText(/memory files, encrypted in the vault on this computer/)).toBeVisible();
});

test('a first message without a key leaves no empty conversation, and the error clears with Retry once a key is set', async () => {
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
  const { page } = app;
  await createVault(page);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Hello, first message.');
  await box.press('Enter');
  await expect(page.getByRole('alert')).toContainText('No Anthropic API key');
  await expect(box).toHaveValue('Hello, first message.');
  await expect(page.getByText('No conversations yet.')).toBeVisible();
  // Listed by the store, not by its keys: format 2 keeps a deleted conversation's head, marked deleted (sync-design.md).
  await expect.poll(async () => (await new Conversations(app!.session.unlocked()).list()).length).toBe(0);

  await page.getByRole('alert').getByRole('button', { name: 'Open Settings' }).click();
  await page.getByLabel('Anthropic API key').fill(fake.apiKey);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toBeVisible();
  await page.getByRole('tab', { name: 'Chat' }).click();
  await expect(page.getByText('No Anthropic API key')).toHaveCount(0);
  fake.script(reply(text('Hello back.')));
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Hello back.');
});
