/**
 * Models, the context meter and export in the window, end to end: the picker
 * lists the Models API's models with their windows (test/fake-anthropic's list
 * is set per test), the next request uses the chosen one, the header above a
 * conversation shows tokens used of the window and saves it as Markdown.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { loadSettings } from '../../electron/core/chat/settings-store';
import { memoryCall, reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, readyApp, shot, type FreshApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
/** What the save dialog answers next (undefined: cancelled). */
let saveTo: string | undefined;
const asked: string[] = [];

test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  saveTo = undefined;
  asked.length = 0;
  // The key comes as ANTHROPIC_API_KEY would give it, so Settings shows it as set from the start.
  app = await readyApp({ anthropicBaseURL: fake.baseURL, anthropicApiKey: fake.apiKey, pickSaveFile: async (name) => (asked.push(name), saveTo) });
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

const picker = (page: Page) => page.getByRole('combobox', { name: 'Model', exact: true });
const options = (page: Page, name = 'Model') => page.getByRole('listbox', { name, exact: true, includeHidden: true }).getByRole('option', { includeHidden: true });
/** Each option as "name — details", read whether the list is open or not. */
const optionTexts = (page: Page, name = 'Model') => options(page, name).evaluateAll((els) => els.map((el) => [...el.children].map((c) => c.textContent).join(' — ')));
/** Opens a model box and clicks the option named `option`. */
async function choose(page: Page, box: string, option: RegExp): Promise<void> {
  await page.getByRole('combobox', { name: box, exact: true }).click();
  await page.getByRole('listbox', { name: box, exact: true }).getByRole('option', { name: option }).click();
}
/**
 * Types `word` into an open listbox's type-ahead by keyboard. A pause of half a second ends a word (the ARIA pattern's,
 * and a space after it chooses), and a loaded machine can leave one between two key presses: the keys' arrival is
 * timed in the page, and the word typed again from the list reopened when a gap came near that.
 */
async function typeAhead(page: Page, box: Locator, word: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await box.evaluate((el) => {
      const w = window as { typedAt?: number[] };
      if (!w.typedAt) el.addEventListener('keydown', () => w.typedAt!.push(performance.now()), { capture: true });
      w.typedAt = [];
    });
    for (const key of word) await box.press(key);
    const gap = await page.evaluate(() => {
      const at = (window as { typedAt?: number[] }).typedAt ?? [];
      return Math.max(0, ...at.slice(1).map((t, i) => t - at[i]!));
    });
    if (gap < 400 || attempt === 6) return;
    // Closed, or chosen by a space typed after a pause: open the list again, and type the word afresh once a pause has
    // ended the one typed so far.
    if ((await box.getAttribute('aria-expanded')) === 'true') await box.press('Escape');
    await box.press('ArrowDown');
    await page.waitForTimeout(600);
  }
}
const meterText = (page: Page) => page.getByRole('group', { name: 'This conversation' }).getByText(/ of [\d,]+ tokens$/);
const lastReply = (page: Page) => page.getByRole('article', { name: 'Claude' }).last();
async function send(page: Page, message: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}
const tokensShown = async (page: Page) => Number((await meterText(page).textContent())!.split(' of ')[0]!.replace(/,/g, ''));

async function openSettings(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(picker(page)).toBeVisible();
}

async function both(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await shot(page, `${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('the model picker lists the API models with their context windows, refreshes on request, and the next request uses the one saved', async () => {
  const { page } = app;
  await openSettings(page);
  await expect.poll(() => optionTexts(page)).toEqual([
    'Claude Sonnet 4.6 — claude-sonnet-4-6 · 1M context · Mid price',
    'Claude Haiku 4.5 — claude-haiku-4-5 · 200K context · Lower price',
    // The fake states no window for this one: the known default applies.
    'Claude Opus 4.1 — claude-opus-4-1 · 200K context · Higher price',
  ]);
  await expect(picker(page)).toHaveText(/^Claude Sonnet 4\.6/);
  await picker(page).click();
  await expect(page.getByRole('listbox', { name: 'Model' })).toBeVisible();
  await expectAccessible(page, 'settings with the model list open');
  await picker(page).press('Escape');
  await expect(page.getByRole('listbox', { name: 'Model' })).toBeHidden();
  // There is no free-text model box any more.
  await expect(page.getByRole('textbox', { name: 'Model' })).toHaveCount(0);
  await expectAccessible(page, 'settings with the model picker');
  await both(page, 'models');

  fake.extra.models = [...fake.extra.models, { id: 'claude-new-5', display_name: 'Claude New 5', max_input_tokens: 500_000 }];
  await page.getByRole('button', { name: 'Refresh list' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'List refreshed: 4 models.' })).toBeVisible();
  await expect.poll(() => optionTexts(page)).toContain('Claude New 5 — claude-new-5 · 500K context');

  // By keyboard: focus the picker, open it at the end, choose; open it again, move up one, choose; save with Enter on the section's button.
  await picker(page).focus();
  await picker(page).press('End');
  await picker(page).press('Enter');
  await expect(picker(page)).toHaveText(/^Claude New 5/);
  await picker(page).press('ArrowDown');
  await picker(page).press('ArrowUp');
  await picker(page).press('Enter');
  await expect(picker(page)).toHaveText(/^Claude Opus 4\.1/);
  // Escape with the list open closes it and changes nothing.
  await picker(page).press('ArrowDown');
  await picker(page).press('Home');
  await picker(page).press('Escape');
  await expect(picker(page)).toHaveText(/^Claude Opus 4\.1/);
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  expect((await loadSettings(app.session.unlocked())).model).toBe('claude-opus-4-1');

  await page.getByRole('tab', { name: 'Chat' }).click();
  fake.script(reply(text('Hello from Opus.')));
  await send(page, 'Which model?');
  await expect(lastReply(page)).toContainText('Hello from Opus.');
  expect(fake.requests.at(-1)!.body.model).toBe('claude-opus-4-1');
});

test('a failed refresh keeps the list shown and says why; a saved model the API no longer offers stays selected and is marked', async () => {
  const { page } = app;
  await openSettings(page);
  await expect.poll(() => optionTexts(page)).toHaveLength(3);
  await choose(page, 'Model', /Claude Haiku 4\.5/);
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();

  // Haiku leaves the list; a model with markup in its name joins it.
  fake.extra.models = [
    { id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', max_input_tokens: 1_000_000 },
    { id: 'claude-markup', display_name: '<img src=x onerror="window.__pwned=1">Bold', max_input_tokens: 200_000 },
  ];
  await page.getByRole('button', { name: 'Refresh list' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'List refreshed: 2 models.' })).toBeVisible();
  await expect(picker(page)).toHaveText(/^claude-haiku-4-5/);
  await expect(options(page).and(page.locator('[aria-selected="true"]'))).toHaveText(/^claude-haiku-4-5\s*Not offered by the API$/);
  await expect(page.getByText(/saved model claude-haiku-4-5 is not in the API’s list/)).toBeVisible();
  await expect.poll(() => optionTexts(page)).toContain('<img src=x onerror="window.__pwned=1">Bold — claude-markup · 200K context');
  await expect(page.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // The API fails: the list shown stays, and the alert says what happened.
  fake.extra.modelsReply = () => ({ status: 500, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'boom' } }) });
  await page.getByRole('button', { name: 'Refresh list' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'internal error (500)' });
  await expect(alert).toContainText('The stored list is kept.');
  await expect(alert).toContainText('Showing the list fetched');
  expect(await optionTexts(page)).toHaveLength(3);
  await expect(picker(page)).toHaveText(/^claude-haiku-4-5/);
  await expectAccessible(page, 'settings after a failed refresh');
  // Saving another setting leaves the saved model as it is.
  await page.getByLabel('Max tokens per reply').fill('2048');
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  await expect.poll(async () => (await loadSettings(app.session.unlocked())).maxTokens).toBe(2048);
  expect((await loadSettings(app.session.unlocked())).model).toBe('claude-haiku-4-5');
});

test('the context meter shows tokens used of the window, updates after each turn, and export saves Markdown with the memory operation', async () => {
  const { page } = app;
  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/tea.md', file_text: 'likes tea' })), reply(text('Noted: tea.')));
  await send(page, 'I like tea');
  await expect(lastReply(page)).toContainText('Noted: tea.');
  await expect(meterText(page)).toHaveText(/^[\d,]+ of 1,000,000 tokens$/);
  const meter = page.getByRole('meter', { name: 'Context window used' });
  await expect(meter).toHaveAttribute('max', '1000000');
  // The meter is asked again once the turn has ended: the count grows from the empty conversation's 0.
  await expect.poll(() => tokensShown(page)).toBeGreaterThan(0);
  const first = await tokensShown(page);
  expect(first).toBe(Number(await meter.getAttribute('value')));
  await expect(page.getByText(/Context (nearly )?full/)).toHaveCount(0);

  fake.script(reply(text('And coffee in the afternoon, noted as well.')));
  await send(page, 'Also coffee in the afternoon');
  await expect(lastReply(page)).toContainText('coffee in the afternoon, noted');
  await expect.poll(() => tokensShown(page)).toBeGreaterThan(first);
  await expectAccessible(page, 'the chat with its header');
  await both(page, 'context-meter');

  // Cancelling the save dialog says nothing and writes nothing.
  await page.getByRole('button', { name: 'Export…' }).click();
  await expect.poll(() => asked.length).toBe(1);
  expect(asked[0]).toBe('I like tea.md');
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toHaveCount(0);

  saveTo = path.join(app.userDataDir, 'tea.md');
  await page.getByRole('button', { name: 'Export…' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const md = await fs.readFile(saveTo, 'utf8');
  expect(md).toContain('## You\n\nI like tea');
  expect(md).toContain('Noted: tea.');
  expect(md).toContain('> Memory: create `/memories/tea.md`');

  // A folder that cannot be written to: a clear error, no "Saved".
  saveTo = path.join(app.userDataDir, 'no-such-folder', 'tea.md');
  await page.getByRole('button', { name: 'Export…' }).click();
  await expect(page.getByRole('alert')).toContainText('could not be saved there');
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toHaveCount(0);
});

test('past 80 % of the window the meter warns in words; a temporary chat has a meter too', async () => {
  const { page } = app;
  fake.extra.countReply = () => ({ status: 200, body: JSON.stringify({ input_tokens: 850_000 }) });
  await page.getByRole('button', { name: 'New temporary chat' }).click();
  fake.script(reply(text('Temporary hello.')));
  await send(page, 'hello in a temporary chat');
  await expect(lastReply(page)).toContainText('Temporary hello.');
  await expect(meterText(page)).toHaveText('850,000 of 1,000,000 tokens');
  await expect(page.getByRole('status').filter({ hasText: 'Context nearly full' })).toContainText('start a new conversation, or turn on compaction');
  await expectAccessible(page, 'a nearly full context meter');
  await both(page, 'context-meter-nearly-full');
});

test('a context meter that cannot be had shows nothing broken, and export still works', async () => {
  const { page } = app;
  fake.script(reply(text('First reply.')));
  await send(page, 'hello');
  await expect(lastReply(page)).toContainText('First reply.');
  await expect(meterText(page)).toBeVisible();
  // A stored models list main cannot read: every context request fails from now on.
  await app.session.unlocked().internal.putJSON('models', { models: 'unreadable', fetched: 1 });
  fake.script(reply(text('Second reply.')));
  await send(page, 'again');
  await expect(lastReply(page)).toContainText('Second reply.');
  await expect(meterText(page)).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText('The meter failed.')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Export…' })).toBeEnabled();
});

test('without an API key the picker says there is no list yet, without an alert, and lists the models once a key is saved', async () => {
  const bare = await readyApp({ anthropicBaseURL: fake.baseURL });
  try {
    const { page } = bare;
    await openSettings(page);
    await expect(page.getByText('No list of models yet. No Anthropic API key is set.')).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
    // The saved model is still the one selected, not marked as not offered: there is no list to say so against.
    await expect(picker(page)).toHaveText(/^claude-sonnet-4-6/);
    await expect(options(page)).toHaveText(['claude-sonnet-4-6']);
    await page.getByLabel('Anthropic API key').fill(fake.apiKey);
    await page.getByRole('button', { name: 'Save key' }).click();
    await expect.poll(() => optionTexts(page)).toHaveLength(3);
    await expect(page.getByText('No list of models yet.')).toHaveCount(0);
  } finally {
    await bare.cleanup();
  }
});

test('beside the message box each conversation picks its model by keyboard: the next request uses it, the meter measures by it, and another conversation keeps Default', async () => {
  const { page } = app;
  const box = page.getByRole('combobox', { name: 'Model for this conversation' });
  const list = page.getByRole('listbox', { name: 'Model for this conversation' });
  await newConversationButton(page).click();
  await expect(box).toHaveText(/^Default \(Claude Sonnet 4\.6\)/);
  fake.script(reply(text('Sonnet here.')));
  await send(page, 'first');
  await expect(lastReply(page)).toContainText('Sonnet here.');
  expect(fake.requests.at(-1)!.body.model).toBe('claude-sonnet-4-6');
  await expect(meterText(page)).toHaveText(/ of 1,000,000 tokens$/);

  // Open by keyboard; type-ahead to Haiku; the list names its window and price tier; Enter chooses.
  await box.focus();
  await box.press('ArrowDown');
  await expect(list).toBeVisible();
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await typeAhead(page, box, 'claude h');
  // aria-activedescendant read again on each poll: read once, it could name the option before the last key's.
  await expect
    .poll(async () => {
      const id = await box.getAttribute('aria-activedescendant');
      return id ? ((await page.locator(`[id="${id}"]`).textContent()) ?? '') : '';
    })
    .toMatch(/Claude Haiku 4\.5.*200K context · Lower price/);
  await expectAccessible(page, 'the model list beside the message box');
  await box.press('Enter');
  await expect(list).toBeHidden();
  await expect(box).toHaveText(/^Claude Haiku 4\.5/);
  await expect(box).toBeFocused();
  await expect(meterText(page)).toHaveText(/ of 200,000 tokens$/);
  fake.script(reply(text('Haiku here.')));
  await send(page, 'second');
  await expect(lastReply(page)).toContainText('Haiku here.');
  expect(fake.requests.at(-1)!.body.model).toBe('claude-haiku-4-5');

  // Escape on the open list closes it and changes nothing (and stops no reply).
  await box.press('ArrowDown');
  await box.press('Home');
  await box.press('Escape');
  await expect(list).toBeHidden();
  await expect(box).toHaveText(/^Claude Haiku 4\.5/);

  // Another conversation starts on Default; coming back shows Haiku again.
  await newConversationButton(page).click();
  await expect(box).toHaveText(/^Default/);
  await page.getByRole('navigation', { name: 'Conversations' }).getByText('first', { exact: true }).click();
  await expect(box).toHaveText(/^Claude Haiku 4\.5/);
  await both(page, 'conversation-model');
});
