/**
 * Attack on the chat chip's "Undo this change" (ToolChip.tsx: its answer kept by tool call id, an in-flight set
 * against double sends; handlers/chat.ts `chatUndo`): a double click, a second click once undone, an undo after the
 * file changed, the undo of a create, an undo whose answer arrives after the user went to another conversation and
 * back, and an undo followed by a lock and unlock.
 */
import { expect, test, type Page } from '@playwright/test';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { eachWithFakeApi, lastReply, lock, newConversationButton, send, unlock, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });
const vault = () => app.session.unlocked();
const conversations = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const UNDONE = 'Undone: the previous version is back.';
const CONFLICT = /has changed since this change \(or is gone\), so it was not undone/;

/** Opens a chip unless it is open already (a chip keeps its open state by tool call id). */
async function openChip(page: Page, name: string) {
  const chip = page.getByRole('button', { name });
  await expect(chip).toBeVisible();
  if ((await chip.getAttribute('aria-expanded')) !== 'true') await chip.click();
}

/** Versions of todo.md the vault has (its history and current one). */
const versions = () => vault().versions('/memories/todo.md').length;

async function oatMilk(page: Page) {
  await vault().memory.writeFile('/memories/todo.md', '- buy milk\n', { mode: 'create', source: 'user' });
  fake.script(reply(memoryCall({ command: 'str_replace', path: '/memories/todo.md', old_str: '- buy milk', new_str: '- buy oat milk' })), reply(text('Changed it.')));
  await send(page, 'Make it oat milk.');
  await expect(lastReply(page)).toContainText('Changed it.');
  const chip = page.getByRole('button', { name: 'edited /memories/todo.md' });
  await chip.click();
  return page.getByRole('button', { name: 'Undo this change' });
}

test('a double click on Undo undoes once and says Undone; a click after that does not turn Undone into a conflict', async () => {
  const { page } = app;
  const undo = await oatMilk(page);
  expect(versions()).toBe(2);
  await undo.dblclick();
  await expect(page.getByText(UNDONE)).toBeVisible();
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy milk\n');
  // One undo: one version written back (v3), not a second attempt.
  expect(versions()).toBe(3);
  // Clicked again once it says Undone: the only change since is the undo itself, so "changed since… not undone"
  // would be wrong; the chip must keep saying it is undone (or offer no Undo any more).
  if (await undo.isVisible()) {
    // (Forced: a button marked unavailable is clicked all the same by a user; it must do nothing.)
    await undo.click({ force: true });
    await page.waitForTimeout(1000);
  }
  await expect(page.getByText(UNDONE)).toBeVisible();
  await expect(page.getByText(CONFLICT)).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy milk\n');
  expect(versions()).toBe(3);
});

test('an undo after the file changed says the conflict and leaves the file as it is', async () => {
  const { page } = app;
  const undo = await oatMilk(page);
  await vault().memory.writeFile('/memories/todo.md', '- buy oat milk\n- bread\n', { mode: 'update', source: 'user' });
  await undo.click();
  await expect(page.getByText(CONFLICT)).toBeVisible();
  await expect(page.getByText(UNDONE)).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy oat milk\n- bread\n');
});

test('the undo of a create deletes the file; an undo whose answer comes while the user is in another conversation shows when they come back', async () => {
  const { page } = app;
  fake.script(reply(text('Hello there.')));
  await send(page, 'Say hello.');
  await expect(lastReply(page)).toContainText('Hello there.');
  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/plan.md', file_text: 'Lisbon in May' })), reply(text('Noted.')));
  await send(page, 'Remember Lisbon.');
  await expect(lastReply(page)).toContainText('Noted.');
  await page.getByRole('button', { name: 'created /memories/plan.md' }).click();
  // Main's memory queue is held, so the undo waits there while the user goes to the other conversation.
  let release!: () => void;
  const held = vault().exclusive(() => new Promise<void>((r) => (release = r)));
  try {
    await page.getByRole('button', { name: 'Undo this change' }).click();
    await conversations(page).getByRole('button', { name: /Say hello/ }).first().click();
    await expect(lastReply(page)).toContainText('Hello there.');
    await expect(page.getByRole('button', { name: 'created /memories/plan.md' })).toHaveCount(0);
  } finally {
    release();
    await held;
  }
  await expect.poll(() => vault().memory.stat('/memories/plan.md')).toBeUndefined();
  await conversations(page).getByRole('button', { name: /Remember Lisbon/ }).first().click();
  await openChip(page, 'created /memories/plan.md');
  await expect(page.getByText(UNDONE)).toBeVisible();
  // After a lock and unlock the chip is drawn anew; Undo again must not say Undone of something it did not do.
  await lock(page);
  await unlock(page);
  await page.getByRole('tab', { name: 'Chat' }).click();
  await conversations(page).getByRole('button', { name: /Remember Lisbon/ }).first().click();
  await openChip(page, 'created /memories/plan.md');
  const undo = page.getByRole('button', { name: 'Undo this change' });
  if (await undo.isVisible()) {
    // (Forced: a button marked unavailable is clicked all the same by a user; it must do nothing.)
    await undo.click({ force: true });
    await page.waitForTimeout(1000);
  }
  await expect(page.getByText(CONFLICT)).toHaveCount(0);
  expect(vault().memory.stat('/memories/plan.md')).toBeUndefined();
});

// Found by this attack: a file re-created at the path of one the user deleted continues its version numbers (the
// deleted one's versions stay in the trash), so the undo of Claude's create saw version 2 and wrote version 1 back:
// the memory the user had deleted came back, said "Undone: the previous version is back". A create never replaces a
// file (the memory tool refuses an existing path), so its undo removes the file.
test('the undo of a create at the path of a memory the user deleted removes the file and does not bring the deleted one back', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/plan.md', 'My old secret plan', { mode: 'create', source: 'user' });
  await vault().memory.remove('/memories/plan.md', 'user');
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/plan.md', file_text: 'Lisbon in May' })), reply(text('Noted.')));
  await send(page, 'Remember Lisbon.');
  await expect(lastReply(page)).toContainText('Noted.');
  expect(await vault().memory.readFile('/memories/plan.md')).toBe('Lisbon in May');
  await openChip(page, 'created /memories/plan.md');
  await page.getByRole('button', { name: 'Undo this change' }).click();
  await expect(page.getByRole('status').filter({ hasText: /Undone|not undone/ })).toBeVisible();
  const now = vault().memory.stat('/memories/plan.md') ? await vault().memory.readFile('/memories/plan.md') : undefined;
  expect(now, 'the file Claude created is gone, and the deleted memory stays deleted').toBeUndefined();
});
