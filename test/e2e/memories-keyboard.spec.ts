import { expect, test } from '@playwright/test';
import type { freshApp} from './helpers';
import { openMemories, readyApp } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
test.beforeEach(async () => {
  app = await readyApp();
  const v = app.session.unlocked();
  for (const p of ['/memories/a.md', '/memories/notes/b.md', '/memories/notes/c.md', '/memories/z.md']) await v.memory.writeFile(p, `text of ${p}`, { mode: 'create', source: 'user' });
  await openMemories(app.page);
});
test.afterEach(async () => app.cleanup());

const item = (name: string) => app.page.getByRole('treeitem', { name, exact: true });

test('with nothing selected, Tab reaches the memory tree and arrows, Home and End move through it', async () => {
  const { page } = app;
  await page.getByRole('searchbox', { name: 'Search memories' }).focus();
  await page.keyboard.press('Tab');
  await expect(item('a.md')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(item('notes')).toBeFocused();
  // Folders start closed (issue 20): Down passes over what is inside one.
  await page.keyboard.press('ArrowDown');
  await expect(item('z.md')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(item('notes')).toBeFocused();
  await page.keyboard.press('End');
  await expect(item('z.md')).toBeFocused();
  await page.keyboard.press('Home');
  await expect(item('a.md')).toBeFocused();
  // Only one item of the tree is in the Tab order.
  await expect(page.locator('[role=treeitem][tabindex="0"]')).toHaveCount(1);
});

test('Right expands a folder (or enters it), Left goes to its parent (or collapses it)', async () => {
  const { page } = app;
  await item('notes').focus();
  // Closed to start with (issue 20): nothing is selected, so no folder is on the path to a selection.
  await expect(item('notes')).toHaveAttribute('aria-expanded', 'false');
  await expect(item('b.md')).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expect(item('notes')).toHaveAttribute('aria-expanded', 'true');
  await expect(item('b.md')).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(item('b.md')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(item('notes')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(item('notes')).toHaveAttribute('aria-expanded', 'false');
  await expect(item('b.md')).toHaveCount(0);
  await page.keyboard.press('ArrowDown');
  await expect(item('z.md')).toBeFocused();
});

test('typing a name moves focus to the next item starting with it', async () => {
  const { page } = app;
  await item('a.md').focus();
  await page.keyboard.type('no');
  await expect(item('notes')).toBeFocused();
  // Another key ends the word: the next letter starts a new one, however quickly it comes.
  await page.keyboard.press('Home');
  await page.keyboard.type('z');
  await expect(item('z.md')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(item('notes')).toBeFocused();
  // Past the last match it wraps around to the first.
  await page.keyboard.type('a');
  await expect(item('a.md')).toBeFocused();
});

test('Enter opens a memory, F2 renames it, Delete asks before deleting — all from the tree', async () => {
  const { page } = app;
  await item('a.md').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('text of /memories/a.md');

  await item('a.md').focus();
  await page.keyboard.press('F2');
  const field = page.getByLabel('New path');
  await expect(field).toBeFocused();
  await expect(field).toHaveValue('/memories/a.md');
  await page.keyboard.press('End');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('txt');
  await page.keyboard.press('Enter');
  await expect(item('a.txt')).toBeVisible();
  expect(app.session.unlocked().memory.stat('/memories/a.txt')?.kind).toBe('file');

  await item('z.md').focus();
  await page.keyboard.press('Delete');
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Delete /memories/z.md?');
  await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(item('z.md')).toBeFocused();
  expect(app.session.unlocked().memory.stat('/memories/z.md')).toBeDefined();

  // Escape leaves the rename form too, back to the item it was asked from.
  await page.keyboard.press('F2');
  await expect(page.getByLabel('New path')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByLabel('New path')).toHaveCount(0);
  await expect(item('z.md')).toBeFocused();
});
