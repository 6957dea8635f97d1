/**
 * What people expect of a chat (issue 20, "The chat"): copying a reply or a
 * message, thinking that stays readable after the reply, a temporary chat
 * that looks and says what it is, the shortcut sheet, and "Go to" (Ctrl+K).
 * One app and vault for the whole spec: the tests run in order and build on
 * what the ones before made (conversations, a memory).
 */
import { expect, test, type Page } from '@playwright/test';
import { saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import { Projects } from '../../electron/core/projects/store';
import { reply, startFakeAnthropic, text, thinking, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, lastReply, lock, messageBox, send, shot, unlock, type FreshApp, readyApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
let fake: FakeAnthropic;
const MARKDOWN = 'Here is **bold** and a list:\n\n- one\n- `two`';
const THOUGHT = 'The user wants a list. <b>Keep it short.</b>';

test.beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ anthropicBaseURL: fake.baseURL });
  await app.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await setApiKey(app.session.unlocked(), fake.apiKey);
  await saveSettings(app.session.unlocked(), { thinking: true });
});
test.afterAll(async () => {
  await app?.cleanup();
  await fake?.close();
});

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const conversations = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const thinkingOf = (page: Page) => lastReply(page).locator('details.thinking');

test('Copy reply puts the reply’s Markdown on the clipboard; Copy message copies the words, by keyboard too', async () => {
  const { page } = app;
  fake.script(reply(thinking(THOUGHT), text(MARKDOWN)));
  await send(page, 'Give me *a short* list');
  await expect(lastReply(page)).toContainText('Here is bold and a list:');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();

  await lastReply(page).hover();
  await lastReply(page).getByRole('button', { name: 'Copy reply' }).click();
  await expect(lastReply(page).getByRole('button', { name: 'Copy reply' })).toHaveText('Copied');
  await expect(page.getByRole('status').filter({ hasText: 'Copied.' })).toHaveCount(1);
  expect(await clipboard(page)).toBe(MARKDOWN);

  // The message's own button is hidden until its message has the pointer or the focus, and is reached by keyboard.
  const mine = page.getByRole('article', { name: 'You' }).last();
  const copyMine = mine.getByRole('button', { name: 'Copy message' });
  await expect(copyMine).toHaveCSS('opacity', '0');
  await copyMine.focus();
  await expect(copyMine).toHaveCSS('opacity', '1');
  await page.keyboard.press('Enter');
  await expect(copyMine).toHaveText('Copied');
  expect(await clipboard(page)).toBe('Give me *a short* list');
});

test('a reply’s model, tokens and cost are quiet: in its action row, shown on hover or keyboard focus, always in its text for a screen reader', async () => {
  const { page } = app;
  const usage = lastReply(page).locator('.msg-actions').getByText(/ in \/ .+ out · /);
  await expect(usage).toHaveCount(1);
  await messageBox(page).hover();
  await messageBox(page).focus();
  await expect(usage).toHaveCSS('opacity', '0');
  // Hidden by opacity alone: a screen reader still reads it with the reply.
  await expect(lastReply(page)).toContainText(/ in \/ .+ out · /);
  await lastReply(page).hover();
  await expect(usage).toHaveCSS('opacity', '1');
  await messageBox(page).hover();
  await expect(usage).toHaveCSS('opacity', '0');
  // By keyboard: with focus on the reply's actions, it shows beside them, on their row.
  await lastReply(page).getByRole('button', { name: 'Copy reply' }).focus();
  await expect(usage).toHaveCSS('opacity', '1');
  const [u, copy] = [await usage.boundingBox(), await lastReply(page).getByRole('button', { name: 'Copy reply' }).boundingBox()];
  expect(Math.abs(u!.y + u!.height / 2 - (copy!.y + copy!.height / 2))).toBeLessThanOrEqual(4);
  // Once "Copied" from the test before has gone back to "Copy".
  await expect(lastReply(page).getByRole('button', { name: 'Copy reply' })).toHaveText('Copy');
  await expectAccessible(page, 'a reply with its actions focused');
});

test('thinking is collapsed once the reply is done, and opens again after switching conversations and after a lock', async () => {
  const { page } = app;
  const first = conversations(page).getByRole('button', { name: 'Give me *a short* list', exact: true });
  await expect(thinkingOf(page)).toHaveJSProperty('open', false);
  await expect(page.getByText(THOUGHT)).toBeHidden();
  await thinkingOf(page).getByText('Thinking', { exact: true }).click();
  // Plain text, never HTML: the tags are shown as typed.
  await expect(page.getByText(THOUGHT)).toBeVisible();
  await lastReply(page).hover();
  await shot(page, '83-thinking-and-copy');

  // Another conversation, then back: the thinking is there, collapsed again.
  fake.script(reply(text('Lisbon in spring is lovely.')));
  await page.keyboard.press('Control+n');
  await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  await expect(messageBox(page)).toBeFocused();
  await send(page, 'Plan a trip to Lisbon');
  await expect(lastReply(page)).toContainText('Lisbon in spring');
  await expect(lastReply(page).locator('details.thinking')).toHaveCount(0);
  await first.click();
  await expect(lastReply(page)).toContainText('Here is bold');
  await expect(thinkingOf(page)).toHaveJSProperty('open', false);
  const summary = thinkingOf(page).getByText('Thinking', { exact: true });
  await summary.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText(THOUGHT)).toBeVisible();

  await lock(page);
  await unlock(page);
  await expect(lastReply(page)).toContainText('Here is bold');
  await expect(thinkingOf(page)).toHaveJSProperty('open', false);
  await thinkingOf(page).getByText('Thinking', { exact: true }).click();
  await expect(page.getByText(THOUGHT)).toBeVisible();
});

test('a temporary chat says so in its header and its empty screen says that nothing is kept', async () => {
  const { page } = app;
  await page.getByRole('button', { name: 'New temporary chat' }).click();
  const header = page.getByRole('group', { name: 'This conversation' });
  await expect(header).toContainText('Temporary chat: not kept');
  await expect(page.getByRole('heading', { name: 'Temporary chat', exact: true })).toBeVisible();
  await expect(page.getByText(/Nothing of this chat is kept\. It is not saved in the vault, and it is gone when you close it, lock Mnemo or quit/)).toBeVisible();
  await expect(page.getByText(/Claude can read your memory here but cannot change it/)).toBeVisible();
  await expect(page.locator('.conversation.temporary')).toHaveCount(1);
  await expectAccessible(page, 'an empty temporary chat');
  await shot(page, '80-chat-temporary');
  // A stored conversation looks as before.
  await conversations(page).getByRole('button', { name: 'Plan a trip to Lisbon', exact: true }).click();
  await expect(header).not.toContainText('Temporary');
  await expect(page.locator('.conversation.temporary')).toHaveCount(0);
});

test('Ctrl+/ and ? open the shortcut sheet, which lists the app’s shortcuts; Escape closes it and focus goes back', async () => {
  const { page } = app;
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await messageBox(page).focus();
  await page.keyboard.press('Control+/');
  await expect(sheet).toBeVisible();
  await expect(sheet).toHaveAttribute('aria-modal', 'true');
  await expect(sheet.getByRole('button', { name: 'Close' })).toBeFocused();
  for (const [keys, does] of [
    ['Ctrl+K', 'Go to a conversation, memory, project or setting'],
    ['Ctrl+N', 'New conversation'],
    ['Ctrl+Shift+L', 'Lock the vault'],
    ['Ctrl+Shift+M', 'Show or hide memory beside the chat'],
    ['F2', 'Rename the memory or folder'],
  ] as const) {
    await expect(sheet.getByRole('row').filter({ hasText: does }).first()).toContainText(keys);
  }
  await expectAccessible(page, 'the shortcut sheet');
  await shot(page, '81-shortcut-sheet');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(messageBox(page)).toBeFocused();

  // In a text box ? is a character; elsewhere it opens the sheet.
  await page.keyboard.type('Why?');
  await expect(messageBox(page)).toHaveValue('Why?');
  await expect(sheet).toBeHidden();
  const toggle = page.getByRole('button', { name: 'Memory', exact: true });
  await toggle.focus();
  await page.keyboard.press('?');
  await expect(sheet).toBeVisible();
  await sheet.getByRole('button', { name: 'Close' }).press('Enter');
  await expect(sheet).toBeHidden();
  await expect(toggle).toBeFocused();
  await messageBox(page).fill('');
});

test('Ctrl+K goes to a conversation, a memory, a settings section and a project by keyboard alone', async () => {
  const { page } = app;
  await app.session.unlocked().memory.writeFile('/memories/trips/lisbon café.md', '# Lisbon\n- pastéis de nata\n', { mode: 'create', source: 'user' });
  const palette = page.getByRole('dialog', { name: 'Go to' });
  const box = palette.getByRole('combobox');
  // The text of the option aria-activedescendant names, read again on each poll: read once, it could be taken
  // before the list for the typed words was drawn (null, and the check waited on '#null': failed ci24).
  const active = () =>
    expect.poll(async () => {
      const id = await box.getAttribute('aria-activedescendant');
      return id ? ((await page.locator(`[id="${id}"]`).textContent()) ?? '') : '';
    });

  // A conversation, by its title: the first one, from the other one open now.
  await page.keyboard.press('Control+k');
  await expect(box).toBeFocused();
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await expectAccessible(page, 'the Go to palette');
  await page.keyboard.type('SHORT LIST');
  await expect(palette.getByRole('option')).toHaveCount(1);
  await active().toContain('Give me *a short* list');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(conversations(page).getByRole('button', { name: 'Give me *a short* list', exact: true })).toHaveAttribute('aria-current', 'true');
  await expect(lastReply(page)).toContainText('Here is bold');
  await expect(messageBox(page)).toBeFocused();

  // A memory, by its path, accents ignored; Down moves past the conversation that matches first.
  await page.keyboard.press('Control+k');
  await page.keyboard.type('lisbon');
  await active().toContain('Plan a trip to Lisbon');
  await page.keyboard.press('ArrowDown');
  await active().toContain('/memories/trips/lisbon café.md');
  await shot(page, '82-go-to');
  await expect(palette.getByRole('option', { selected: true })).toContainText('lisbon café.md');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: /^Memories/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('textbox', { name: 'Editor' })).toBeFocused();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('pastéis de nata');

  // A settings section, by its name.
  await page.keyboard.press('Control+k');
  await page.keyboard.type('secur');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: 'Security', level: 2 })).toBeFocused();

  // Escape leaves everything as it was, focus included; nothing found says so.
  await page.keyboard.press('Control+k');
  await page.keyboard.type('no such thing anywhere');
  await expect(palette.getByRole('status')).toHaveText('Nothing matches.');
  await expect(box).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Security', level: 2 })).toBeFocused();

  // A project: picked in the sidebar, with a conversation of its own to type in (it had none).
  await new Projects(app.session.unlocked()).create('Garden');
  await page.keyboard.press('Control+k');
  await page.keyboard.type('garden');
  await active().toContain('Garden');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('combobox', { name: 'Project', exact: true })).toContainText('Garden');
  await expect(page.getByRole('region', { name: 'Project Garden' }).getByRole('button', { name: 'New conversation', exact: true })).toHaveAttribute('aria-current', 'true');
  await expect(messageBox(page)).toBeFocused();
});
