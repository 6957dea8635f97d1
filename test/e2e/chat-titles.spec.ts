/**
 * Conversation titles: a small model names a conversation after its first
 * exchange (the fake API answers title requests apart from its script), the
 * setting turns it off, and a temporary chat is never named.
 */
import { expect, test } from '@playwright/test';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { type FreshApp, idle, readyApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ anthropicBaseURL: fake.baseURL, anthropicApiKey: fake.apiKey });
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

test('a new conversation is named after its first reply, the list shows it live, and the setting turns naming off', async () => {
  const { page } = app;
  const list = page.getByRole('navigation', { name: 'Conversations' });
  const send = async (words: string, answer: string) => {
    fake.script(reply(text(answer)));
    await page.getByRole('textbox', { name: 'Message' }).fill(words);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText(answer);
    // The reply shows while its turn is still being saved; a message sent meanwhile is refused as "still answering"
    // (kept in the box, with Retry): fc20 at load mean 9.3.
    await idle(page);
  };
  fake.extra.titleReply = '"Tea preferences."';
  await newConversationButton(page).click();
  await send('I like green tea in the morning, please remember', 'Noted.');
  await expect(list.getByText('Tea preferences', { exact: true })).toBeVisible();
  expect(fake.extra.titleRequests).toHaveLength(1);
  // A second exchange asks for no title.
  await send('And coffee after lunch', 'Noted too.');
  await expect(list.getByText('Tea preferences', { exact: true })).toBeVisible();
  expect(fake.extra.titleRequests).toHaveLength(1);

  // A temporary chat is never named.
  await page.getByRole('button', { name: 'New temporary chat' }).click();
  await send('a passing question', 'A passing answer.');
  await expect(list.getByText('a passing question')).toBeVisible();
  expect(fake.extra.titleRequests).toHaveLength(1);

  // Off in Settings: the first message stays the title, and nothing is asked.
  await page.getByRole('tab', { name: 'Settings' }).click();
  const naming = page.getByRole('checkbox', { name: /Name new conversations automatically/ });
  await expect(naming).toBeChecked();
  await naming.uncheck();
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  await page.getByRole('tab', { name: 'Chat' }).click();
  await newConversationButton(page).click();
  await send('plain first words', 'Plain reply.');
  await expect(list.getByText('plain first words', { exact: true })).toBeVisible();
  expect(fake.extra.titleRequests).toHaveLength(1);
});
