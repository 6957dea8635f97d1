/**
 * Versions of a conversation in the window (issue 20, "The chat"):
 * Regenerate a reply, edit any sent message in place, and ‹ 2 / 3 › to go
 * between the versions. One app and vault for the whole spec: the tests run
 * in order and build on the conversations the ones before made.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, idle, lastReply, lock, messageBox, send, shot, unlock, type FreshApp, readyApp, newConversationButton } from './helpers';
import { seedConversation } from './seed';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
let fake: FakeAnthropic;

test.beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ anthropicBaseURL: fake.baseURL });
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterAll(async () => {
  await app?.cleanup();
  await fake?.close();
});

const yours = (page: Page) => page.getByRole('article', { name: 'You' });
const replies = (page: Page) => page.getByRole('article', { name: 'Claude' });
const switchOf = (where: Locator | Page) => where.getByRole('group', { name: 'Versions of this message' });
/** The messages on screen holding `words` (the screen reader's "Claude replied" status may still say older words). */
const shown = (page: Page, words: string) => page.getByRole('article').filter({ hasText: words });
const editor = (page: Page) => page.getByRole('textbox', { name: 'Your edit' });
/** A reply slow enough (about 6 s) that what the window shows while it streams can be checked, on a busy machine too. */
const slow = (words: string) => ({ ...reply(text(`${words} `.repeat(12).trim())), delayMs: 120, chunk: 4 });
/** What the fake received last: the API history, as JSON. */
const lastSent = () => JSON.stringify(fake.requests.at(-1)!.body.messages);

/**
 * A message's actions in one row under its text, as in other chat apps: its version switch first, then each button
 * named, left to right, all centred on one line below `body`.
 */
async function expectActionRow(message: Locator, body: Locator, buttons: string[]): Promise<void> {
  const boxes = [];
  for (const l of [switchOf(message), ...buttons.map((name) => message.getByRole('button', { name, exact: true }))]) {
    const b = await l.boundingBox();
    if (!b) throw new Error('an action is not laid out');
    boxes.push(b);
  }
  const under = await body.boundingBox();
  if (!under) throw new Error('the message text is not laid out');
  const middle = (b: { y: number; height: number }) => b.y + b.height / 2;
  for (const [i, b] of boxes.entries()) {
    const what = i === 0 ? 'the version switch' : buttons[i - 1]!;
    expect.soft(Math.abs(middle(b) - middle(boxes[0]!)), `${what} on the switch's row`).toBeLessThanOrEqual(4);
    expect.soft(b.y, `${what} under the text`).toBeGreaterThanOrEqual(under.y + under.height - 1);
    if (i > 0) expect.soft(b.x, `${what} after the one before it`).toBeGreaterThan(boxes[i - 1]!.x + boxes[i - 1]!.width - 1);
  }
}

test('Regenerate streams a new reply in place of the old one; ‹ 2 / 2 › on the reply goes back and forth, focus staying on the switch', async () => {
  const { page } = app;
  fake.script(reply(text('First answer.')));
  await send(page, 'Name a colour.');
  await expect(lastReply(page)).toContainText('First answer.');
  await idle(page);
  // Nothing has versions yet.
  await expect(switchOf(page)).toHaveCount(0);

  fake.script(slow('Second answer.'));
  await lastReply(page).hover();
  await lastReply(page).getByRole('button', { name: 'Regenerate' }).click();
  // While it streams, the old reply is out of view, the message stays, and nothing offers another version.
  await expect(page.locator('article.streaming')).toContainText('Second answer.');
  await expect(shown(page, 'First answer.')).toHaveCount(0);
  await expect(yours(page)).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Regenerate' })).toHaveCount(0);
  await expect(messageBox(page)).toBeFocused();
  await idle(page);

  await expect(replies(page)).toHaveCount(1);
  await expect(lastReply(page)).toContainText('Second answer.');
  const versions = switchOf(lastReply(page));
  await expect(versions).toContainText('2 / 2');
  await expect(versions).toContainText('Version 2 of 2');
  await expect(versions.getByRole('button', { name: 'Next version' })).toBeDisabled();
  // One action row under the reply: ‹ 2 / 2 ›, Copy, Regenerate.
  await expectActionRow(lastReply(page), lastReply(page).getByText('Second answer.').last(), ['Copy reply', 'Regenerate']);
  // The same message went again, alone.
  expect(fake.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'Name a colour.' }]);

  await versions.getByRole('button', { name: 'Previous version' }).click();
  await expect(lastReply(page)).toContainText('First answer.');
  await expect(switchOf(lastReply(page))).toContainText('1 / 2');
  // Previous is disabled at the first version: focus is on its neighbour, not lost to the page.
  await expect(switchOf(lastReply(page)).getByRole('button', { name: 'Next version' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(lastReply(page)).toContainText('Second answer.');
  await expect(switchOf(lastReply(page))).toContainText('2 / 2');
  await expect(switchOf(lastReply(page)).getByRole('button', { name: 'Previous version' })).toBeFocused();
  await expect(replies(page)).toHaveCount(1);
});

test('editing the first of two messages: the later exchange goes, the new reply shows, ‹ 2 / 2 › on the message brings both back', async () => {
  const { page } = app;
  await newConversationButton(page).click();
  fake.script(reply(text('Reply one.')), reply(text('Reply two.')));
  await send(page, 'First question');
  await expect(lastReply(page)).toContainText('Reply one.');
  await send(page, 'Second question');
  await expect(lastReply(page)).toContainText('Reply two.');
  await idle(page);

  fake.script(slow('Edited reply.'));
  await yours(page).first().hover();
  await yours(page).first().getByRole('button', { name: 'Edit message' }).click();
  await expect(editor(page)).toBeFocused();
  await expect(editor(page)).toHaveValue('First question');
  await editor(page).fill('First question, edited');
  await editor(page).press('Enter');
  // The edited message and its reply stream where the first exchange was; the second exchange is out of view.
  await expect(page.locator('article.streaming')).toContainText('Edited reply.');
  await expect(shown(page, 'Second question')).toHaveCount(0);
  await expect(shown(page, 'Reply one.')).toHaveCount(0);
  await idle(page);

  await expect(yours(page)).toHaveCount(1);
  await expect(yours(page)).toContainText('First question, edited');
  await expect(replies(page)).toHaveCount(1);
  await expect(lastReply(page)).toContainText('Edited reply.');
  await expect(switchOf(yours(page).first())).toContainText('2 / 2');
  await expect(switchOf(lastReply(page))).toHaveCount(0);
  // Claude was sent the edited message alone: nothing of the exchange after it.
  expect(fake.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'First question, edited' }]);
  expect(lastSent()).not.toContain('Second question');
  expect(lastSent()).not.toContain('Reply one.');

  await switchOf(yours(page).first()).getByRole('button', { name: 'Previous version' }).click();
  await expect(yours(page)).toHaveCount(2);
  await expect(yours(page).first()).toContainText('First question');
  await expect(yours(page).first()).not.toContainText('edited');
  await expect(yours(page).last()).toContainText('Second question');
  await expect(replies(page).first()).toContainText('Reply one.');
  await expect(lastReply(page)).toContainText('Reply two.');
  await expect(switchOf(yours(page).first())).toContainText('1 / 2');
  await expect(switchOf(yours(page).first()).getByRole('button', { name: 'Next version' })).toBeFocused();
  // One action row under the message too: ‹ 1 / 2 ›, Copy, Edit.
  await expectActionRow(yours(page).first(), yours(page).first().locator('.body'), ['Copy message', 'Edit message']);
  await shot(page, '25-chat-versions-switch');
});

test('versions are kept in the vault: after lock and unlock the version shown and the other one are both still there', async () => {
  const { page } = app;
  await lock(page);
  await unlock(page);
  await expect(yours(page)).toHaveCount(2);
  const versions = switchOf(yours(page).first());
  await expect(versions).toContainText('1 / 2');
  await versions.getByRole('button', { name: 'Next version' }).click();
  await expect(yours(page)).toHaveCount(1);
  await expect(yours(page)).toContainText('First question, edited');
  await expect(lastReply(page)).toContainText('Edited reply.');
  // And the regenerated conversation still has both replies.
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Name a colour.', exact: true }).click();
  await expect(switchOf(lastReply(page))).toContainText('2 / 2');
});

test('by keyboard alone: Edit opens the editor focused, Shift+Enter breaks the line, the text survives a tab switch, Escape cancels back to Edit', async () => {
  const { page } = app;
  const sentBefore = fake.requests.length;
  const edit = yours(page).first().getByRole('button', { name: 'Edit message' });
  await edit.focus();
  await page.keyboard.press('Enter');
  await expect(editor(page)).toBeFocused();
  await expect(editor(page)).toHaveValue('Name a colour.');
  await page.keyboard.press('End');
  await page.keyboard.type(' Not red.');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('Or blue.');
  await expect(editor(page)).toHaveValue('Name a colour. Not red.\nOr blue.');
  // While a message is edited, the switches wait: a switch would change the messages under the editor.
  await expect(switchOf(lastReply(page)).getByRole('button', { name: 'Previous version' })).toBeDisabled();
  await expectAccessible(page, 'a conversation with versions and a message being edited');
  await shot(page, '26-chat-versions-editing');

  await page.getByRole('tab', { name: 'Memories' }).click();
  await page.getByRole('tab', { name: /^Chat/ }).click();
  await expect(editor(page)).toHaveValue('Name a colour. Not red.\nOr blue.');

  await editor(page).focus();
  await page.keyboard.press('Escape');
  await expect(editor(page)).toHaveCount(0);
  await expect(edit).toBeFocused();
  await expect(yours(page).first()).toContainText('Name a colour.');
  await expect(yours(page).first()).not.toContainText('Not red.');
  expect(fake.requests.length).toBe(sentBefore);
  await expectAccessible(page, 'a conversation with versions');
});

test('an edit refused before sending (no API key) keeps its text in the editor and the conversation as it was; Retry sends it', async () => {
  const { page } = app;
  await setApiKey(app.session.unlocked(), null);
  const sentBefore = fake.requests.length;
  // "Edit last message" beside the box opens the same editor, on the last message.
  await page.getByRole('button', { name: 'Edit last message' }).click();
  await expect(editor(page)).toBeFocused();
  await editor(page).fill('Name a colour, in French.');
  await editor(page).press('Enter');
  await expect(page.getByRole('alert')).toContainText('No Anthropic API key is set.');
  await expect(editor(page)).toHaveValue('Name a colour, in French.');
  await expect(editor(page)).toBeFocused();
  // Nothing went out and nothing changed: the reply shown and its two versions are as they were.
  expect(fake.requests.length).toBe(sentBefore);
  await expect(yours(page)).toHaveCount(1);
  await expect(lastReply(page)).toContainText('Second answer.');
  await expect(switchOf(page)).toHaveCount(1);
  await expect(switchOf(page)).toContainText('2 / 2');
  // The composer is not where an edit's text goes back to.
  await expect(messageBox(page)).toHaveValue('');

  await setApiKey(app.session.unlocked(), fake.apiKey);
  fake.script(reply(text('Bleu.')));
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(lastReply(page)).toContainText('Bleu.');
  await idle(page);
  await expect(editor(page)).toHaveCount(0);
  await expect(yours(page)).toHaveCount(1);
  await expect(yours(page)).toContainText('Name a colour, in French.');
  // A second version of the message (its two replies are versions of the reply, not of the message).
  await expect(switchOf(yours(page))).toContainText('2 / 2');
  await expect(switchOf(lastReply(page))).toHaveCount(0);
  expect(fake.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'Name a colour, in French.' }]);
  await switchOf(yours(page)).getByRole('button', { name: 'Previous version' }).click();
  await expect(yours(page)).toContainText('Name a colour.');
  await expect(lastReply(page)).toContainText('Second answer.');
  await expect(switchOf(yours(page))).toContainText('1 / 2');
  await expect(switchOf(lastReply(page))).toContainText('2 / 2');
});

test('a message stored before versions existed cannot get one: Edit and Regenerate say so, and the typed edit stays, through Retry too', async () => {
  const { page } = app;
  // Stored as an older Mnemo did: no record of where each exchange began in the API history.
  await seedConversation(app.session.unlocked(), 'Old conversation', 2);
  // A new conversation reads the list again, so the stored one shows in it.
  await newConversationButton(page).click();
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Old conversation', exact: true }).click();
  await expect(lastReply(page)).toContainText('That was reply 1.');
  const sentBefore = fake.requests.length;

  await lastReply(page).getByRole('button', { name: 'Regenerate' }).click();
  await expect(page.getByRole('alert')).toContainText('stored by an earlier version of Mnemo');
  await expect(lastReply(page)).toContainText('That was reply 1.');

  await yours(page).first().getByRole('button', { name: 'Edit message' }).click();
  await editor(page).fill('Show me version zero.');
  await editor(page).press('Enter');
  await expect(page.getByRole('alert')).toContainText('stored by an earlier version of Mnemo');
  await expect(editor(page)).toHaveValue('Show me version zero.');
  // Retry tries the edit again; it takes nothing back.
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('alert')).toContainText('stored by an earlier version of Mnemo');
  await expect(editor(page)).toHaveValue('Show me version zero.');
  await expect(yours(page)).toHaveCount(2);
  await expect(replies(page)).toHaveCount(2);
  await expect(messageBox(page)).toHaveValue('');
  expect(fake.requests.length).toBe(sentBefore);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(yours(page).first().getByRole('button', { name: 'Edit message' })).toBeFocused();
});

test('text selected in the editor the moment it opens stays selected, so typing replaces it (under load it was once typed after it)', async () => {
  const { page } = app;
  // As a fast user (or Playwright's fill) does: focus the editor and select its text as soon as it is in the page.
  await page.evaluate(() => {
    const seen = new MutationObserver(() => {
      const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Your edit"]');
      if (!box) return;
      seen.disconnect();
      box.focus();
      box.select();
    });
    seen.observe(document.body, { childList: true, subtree: true });
  });
  await yours(page).first().getByRole('button', { name: 'Edit message' }).click();
  await expect(editor(page)).toBeFocused();
  // Past the frames in which opening the editor places its own focus.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  const [start, end, length] = await editor(page).evaluate((b: HTMLTextAreaElement) => [b.selectionStart, b.selectionEnd, b.value.length]);
  expect(length).toBeGreaterThan(0);
  expect([start, end]).toEqual([0, length]);
  await page.keyboard.type('Replaced.');
  await expect(editor(page)).toHaveValue('Replaced.');
  await page.keyboard.press('Escape');
  await expect(editor(page)).toHaveCount(0);
});

test('an edit open when the vault locks is back in its editor after unlocking, and is gone for good once cancelled', async () => {
  const { page } = app;
  await yours(page).first().getByRole('button', { name: 'Edit message' }).click();
  await editor(page).fill('Kept across the lock 4471.');
  await lock(page);
  // The locked window holds none of it: main keeps it encrypted in the vault.
  expect(await page.content()).not.toContain('4471');
  await unlock(page);
  await expect(editor(page)).toHaveValue('Kept across the lock 4471.');
  await expect(messageBox(page)).toHaveValue('');
  await expectAccessible(page, 'an edit restored after unlocking');
  await editor(page).press('Escape');
  await expect(editor(page)).toHaveCount(0);
  await lock(page);
  await unlock(page);
  await expect(yours(page).first().getByRole('button', { name: 'Edit message' })).toBeVisible();
  await expect(editor(page)).toHaveCount(0);
});

test('regenerating twice then editing: the message has 2 versions, not 4; its version 1 shows the original words with the reply still at ‹ 3 / 3 ›', async () => {
  const { page } = app;
  await page.locator('button.new-conversation').click();
  fake.script(reply(text('Answer one.')));
  await send(page, 'Original words');
  await expect(lastReply(page)).toContainText('Answer one.');
  await idle(page);
  for (const words of ['Answer two.', 'Answer three.']) {
    fake.script(reply(text(words)));
    await lastReply(page).hover();
    await lastReply(page).getByRole('button', { name: 'Regenerate' }).click();
    await expect(lastReply(page)).toContainText(words);
    await idle(page);
  }
  await expect(switchOf(lastReply(page))).toContainText('3 / 3');
  await expect(switchOf(yours(page))).toHaveCount(0);

  fake.script(reply(text('Answer to the edit.')));
  await yours(page).hover();
  await yours(page).getByRole('button', { name: 'Edit message' }).click();
  await editor(page).fill('Edited words');
  await editor(page).press('Enter');
  await expect(lastReply(page)).toContainText('Answer to the edit.');
  await idle(page);
  await expect(yours(page)).toContainText('Edited words');
  await expect(switchOf(yours(page))).toContainText('2 / 2');
  await expect(switchOf(yours(page))).toContainText('Version 2 of 2');
  // The edited message has one reply: no switch on it.
  await expect(switchOf(lastReply(page))).toHaveCount(0);

  await switchOf(yours(page)).getByRole('button', { name: 'Previous version' }).click();
  await expect(yours(page)).toContainText('Original words');
  await expect(switchOf(yours(page))).toContainText('1 / 2');
  await expect(lastReply(page)).toContainText('Answer three.');
  await expect(switchOf(lastReply(page))).toContainText('3 / 3');
  await expect(switchOf(yours(page)).getByRole('button', { name: 'Next version' })).toBeFocused();
  // Its replies are still each reachable, and the message's switch stays at 1 / 2 through them.
  await switchOf(lastReply(page)).getByRole('button', { name: 'Previous version' }).click();
  await expect(lastReply(page)).toContainText('Answer two.');
  await expect(switchOf(lastReply(page))).toContainText('2 / 3');
  await expect(switchOf(lastReply(page)).getByRole('button', { name: 'Previous version' })).toBeFocused();
  await expect(switchOf(yours(page))).toContainText('1 / 2');
  await expect(yours(page)).toContainText('Original words');

  await switchOf(yours(page)).getByRole('button', { name: 'Next version' }).click();
  await expect(yours(page)).toContainText('Edited words');
  await expect(lastReply(page)).toContainText('Answer to the edit.');
  await expect(switchOf(yours(page))).toContainText('2 / 2');
});

/** True when `target` is wholly inside the transcript's view (not scrolled out of it). */
const inTranscriptView = (target: Locator) =>
  target.evaluate((el) => {
    const box = el.closest('.messages')!.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  });
const frames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));

test('resizing the window keeps the message being edited, and a version switch just pressed, in view and focused (the view does not jump to the end)', async () => {
  const { page } = app;
  const before = page.viewportSize();
  await page.setViewportSize({ width: 900, height: 800 });
  await page.locator('button.new-conversation').click();
  // Replies short enough that the second message is in view at the end at 800 px (each message has its action row under it), not at 340.
  const long = (n: number) => `Line 1 of long answer ${n}.`;
  fake.script(reply(text('Short one.')), reply(text('Short two.')), reply(text(long(1))));
  for (const words of ['First question', 'Second question', 'Third question']) {
    await send(page, words);
    await idle(page);
  }
  await expect(lastReply(page)).toContainText('Line 1 of long answer 1.');
  const second = yours(page).nth(1);
  expect(await inTranscriptView(second)).toBe(true);

  await second.hover();
  await second.getByRole('button', { name: 'Edit message' }).click();
  await expect(editor(page)).toBeFocused();
  await page.setViewportSize({ width: 900, height: 340 });
  await frames(page);
  await expect.poll(() => inTranscriptView(editor(page))).toBe(true);
  await expect(editor(page)).toBeFocused();
  await page.setViewportSize({ width: 700, height: 800 });
  await frames(page);
  await expect.poll(() => inTranscriptView(editor(page))).toBe(true);
  await expect(editor(page)).toBeFocused();

  await page.setViewportSize({ width: 900, height: 800 });
  fake.script(reply(text(long(2))));
  await editor(page).fill('Second question, edited');
  await editor(page).press('Enter');
  await expect(lastReply(page)).toContainText('Line 1 of long answer 2.');
  await idle(page);
  const versions = switchOf(yours(page).nth(1));
  await expect(versions).toContainText('2 / 2');

  await versions.getByRole('button', { name: 'Previous version' }).click();
  await expect(lastReply(page)).toContainText('Line 1 of long answer 1.');
  await expect(versions).toContainText('1 / 2');
  const next = versions.getByRole('button', { name: 'Next version' });
  await expect(next).toBeFocused();
  await frames(page);
  await expect.poll(() => inTranscriptView(next)).toBe(true);
  await page.setViewportSize({ width: 900, height: 340 });
  await frames(page);
  await expect.poll(() => inTranscriptView(next)).toBe(true);
  await expect(next).toBeFocused();
  if (before) await page.setViewportSize(before);
});
