import { expect, test } from '@playwright/test';
import { eachWithMemoriesOpen, shot, type FreshApp } from './helpers';

let app: FreshApp;
eachWithMemoriesOpen((a) => (app = a));

const vault = () => app.session.unlocked();

test('a deleted memory is listed in the trash with when and by whom, shows its history, and comes back on restore', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/diary.md', 'first text', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/diary.md', 'second text', { mode: 'update', source: 'claude' });
  await page.getByRole('treeitem', { name: 'diary.md' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('treeitem', { name: 'diary.md' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('region', { name: 'Trash' });
  const item = trash.getByRole('button', { name: /\/memories\/diary\.md/ });
  await expect(item).toContainText('deleted by you');
  await item.click();
  await expect(trash.getByRole('button', { name: /^Version 2 / })).toContainText('Claude');
  await trash.getByRole('button', { name: /^Version 1 / }).click();
  await expect(trash.getByLabel('Text of version 1')).toHaveText('first text');
  await shot(page, '18-memories-trash');
  await trash.getByRole('button', { name: 'Restore this version' }).click();

  await expect(page.getByRole('treeitem', { name: 'diary.md' })).toBeVisible();
  expect(await vault().memory.readFile('/memories/diary.md')).toBe('first text');
  expect(vault().writer('/memories/diary.md')).toEqual({ kind: 'restore', fromVersion: 1 });
  expect(vault().trash()).toEqual([]);
});

test('restoring refuses clearly when something now occupies the deleted memory’s path', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/x.md', 'old', { mode: 'create', source: 'user' });
  await vault().memory.remove('/memories/x.md', 'user');
  await vault().memory.mkdir('/memories/x.md', 'user');
  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('region', { name: 'Trash' });
  await trash.getByRole('button', { name: /\/memories\/x\.md/ }).click();
  await trash.getByRole('button', { name: 'Restore this version' }).click();
  await expect(trash.getByRole('alert')).toContainText('in use by another memory or folder now');
  expect(vault().memory.stat('/memories/x.md')?.kind).toBe('dir');
});

test('emptying the trash asks first, then removes deleted memories and their versions for good', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/old.md', 'old', { mode: 'create', source: 'user' });
  await vault().memory.remove('/memories/old.md', 'user');
  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('region', { name: 'Trash' });
  await trash.getByRole('button', { name: 'Empty trash' }).click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Permanently delete 1 memory and all its versions?');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(trash.getByRole('button', { name: 'Empty trash' })).toBeFocused();
  await expect(trash.getByRole('button', { name: /\/memories\/old\.md/ })).toBeVisible();
  expect(vault().trash()).toHaveLength(1);

  await trash.getByRole('button', { name: 'Empty trash' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete permanently' }).click();
  await expect(trash).toContainText('The trash is empty.');
  expect(vault().trash()).toEqual([]);
});

test('Delete and Empty trash are set apart from the other actions and styled as destructive', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/b.md', 'b', { mode: 'create', source: 'user' });
  await vault().memory.remove('/memories/b.md', 'user');
  await page.getByRole('treeitem', { name: 'a.md' }).click();
  const toolbar = page.getByRole('toolbar', { name: 'Memory actions' });
  const del = toolbar.getByRole('button', { name: 'Delete' });
  const history = toolbar.getByRole('button', { name: 'History' });
  const [d, h] = [(await del.boundingBox())!, (await history.boundingBox())!];
  // Not the next button along: a clear gap (or a row of its own) separates it from History.
  expect(d.x - (h.x + h.width) >= 24 || d.y >= h.y + h.height).toBe(true);
  const danger = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--danger').trim());
  const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
  await expect(del).toHaveCSS('color', rgb(danger));
  await expect(history).not.toHaveCSS('color', rgb(danger));

  await page.getByRole('button', { name: 'Trash' }).click();
  await expect(page.getByRole('region', { name: 'Trash' }).getByRole('button', { name: 'Empty trash' })).toHaveCSS('color', rgb(danger));
});
