/** Issue 13 item 1: nothing typed is lost — tab switches, manual and idle locks. */
import { expect, test } from '@playwright/test';
import type { freshApp} from './helpers';
import { expectAccessible, lock, openMemories, typeInEditor, unlock, readyApp } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
test.beforeEach(async () => {
  app = await readyApp();
});
test.afterEach(async () => app.cleanup());

const EDIT = '# Profile\nUnsaved edit 8812';
const CHAT = 'Half-typed message 5530';
const editor = () => app.page.getByRole('textbox', { name: 'Editor' });
const message = () => app.page.getByRole('textbox', { name: 'Message' });

async function openProfile(): Promise<void> {
  await app.session.unlocked().memory.writeFile('/memories/profile.md', '# Profile\nSaved text.', { mode: 'create', source: 'user' });
  await openMemories(app.page);
  await app.page.getByRole('treeitem', { name: 'profile.md' }).click();
  await expect(editor()).toContainText('Saved text.');
}

test('an unsaved memory edit survives switching to Chat and Settings and back, by click and by Ctrl+1/2/3', async () => {
  const { page } = app;
  await openProfile();
  await typeInEditor(page, EDIT);
  await page.getByRole('tab', { name: 'Chat' }).click();
  await page.getByRole('tab', { name: 'Memories' }).click();
  await expect(editor()).toContainText('Unsaved edit 8812');
  await page.keyboard.press('ControlOrMeta+3');
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ControlOrMeta+2');
  await expect(editor()).toContainText('Unsaved edit 8812');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
});

test('the chat draft survives switching tabs', async () => {
  const { page } = app;
  await message().fill(CHAT);
  await page.getByRole('tab', { name: 'Memories' }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('tab', { name: 'Chat' }).click();
  await expect(message()).toHaveValue(CHAT);
});

test('an unsaved Settings field survives a tab switch', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByLabel('Max tokens per reply').fill('3077');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByLabel('Max tokens per reply')).toHaveValue('3077');
});

test('an unsaved memory edit is kept encrypted across a lock and offered back after unlock', async () => {
  const { page } = app;
  await openProfile();
  await typeInEditor(page, EDIT);
  await lock(page);
  // The locked window holds none of it.
  expect(await page.content()).not.toContain('8812');
  await unlock(page);
  const offer = page.getByRole('group', { name: 'Unsaved work' });
  await expect(offer).toContainText('Restore unsaved edit of /memories/profile.md?');
  await expectAccessible(page, 'the draft offer');
  await offer.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(editor()).toContainText('Unsaved edit 8812');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/profile.md')).toBe(EDIT);
  // Restored and saved: not offered again.
  await lock(page);
  await unlock(page);
  await expect(page.getByRole('group', { name: 'Unsaved work' })).toHaveCount(0);
});

test('a discarded memory draft is gone, and the saved text is untouched', async () => {
  const { page } = app;
  await openProfile();
  await typeInEditor(page, EDIT);
  await lock(page);
  await unlock(page);
  await page.getByRole('group', { name: 'Unsaved work' }).getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByRole('group', { name: 'Unsaved work' })).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/profile.md')).toBe('# Profile\nSaved text.');
  await lock(page);
  await unlock(page);
  await expect(page.getByRole('group', { name: 'Unsaved work' })).toHaveCount(0);
});

test('the unsent chat message comes back after an idle lock', async () => {
  const { page } = app;
  await message().fill(CHAT);
  // Idle lock is started by main, with no warning to the window.
  await expect.poll(() => app.session.drafts.holdsAny()).toBe(true);
  await app.session.lock('idle');
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  expect(await page.content()).not.toContain('5530');
  await unlock(page);
  await expect(message()).toHaveValue(CHAT);
});

test('the unsent chat message comes back after a manual lock', async () => {
  const { page } = app;
  await message().fill(CHAT);
  await lock(page);
  await unlock(page);
  await expect(message()).toHaveValue(CHAT);
});

test('"Settings saved." is shown beside its button, inside the window', async () => {
  const { page } = app;
  await page.setViewportSize({ width: 900, height: 650 });
  await page.getByRole('tab', { name: 'Settings' }).click();
  const save = page.getByRole('button', { name: 'Save Claude and memory settings' });
  await save.click();
  const status = page.getByRole('status').filter({ hasText: 'Settings saved.' });
  await expect(status).toBeInViewport();
  const [a, b] = [await save.boundingBox(), await status.boundingBox()];
  // Same row: the status starts where the button ends, not pages below.
  expect(Math.abs(a!.y + a!.height / 2 - (b!.y + b!.height / 2))).toBeLessThan(a!.height);
});
