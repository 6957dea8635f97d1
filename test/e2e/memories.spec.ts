import { expect, test } from '@playwright/test';
import { eachWithMemoriesOpen, lock, shot, typeInEditor, type FreshApp } from './helpers';

let app: FreshApp;
eachWithMemoriesOpen((a) => (app = a));

const vault = () => app.session.unlocked();

test('create, edit, save, rename and delete a memory; each change is in the vault', async () => {
  const { page } = app;
  await page.getByRole('button', { name: 'New memory' }).click();
  await page.getByLabel('Path of the new memory').fill('/memories/notes.md');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: 'notes.md' })).toBeVisible();
  expect(vault().memory.stat('/memories/notes.md')).toMatchObject({ kind: 'file', size: 0 });

  await typeInEditor(page, '# Notes\nThe user prefers tea over coffee.');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('# Notes\nThe user prefers tea over coffee.');
  await shot(page, '10-memories-editor');

  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('New path').fill('/memories/prefs/drinks.md');
  await page.getByLabel('New path').press('Enter');
  await expect(page.getByRole('treeitem', { name: 'drinks.md' })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'notes.md' })).toHaveCount(0);
  expect(vault().memory.stat('/memories/notes.md')).toBeUndefined();
  expect(await vault().memory.readFile('/memories/prefs/drinks.md')).toContain('tea over coffee');

  await page.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('Delete /memories/prefs/drinks.md?');
  await shot(page, '11-memories-delete-confirm');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('treeitem', { name: 'drinks.md' })).toHaveCount(0);
  expect(vault().memory.stat('/memories/prefs/drinks.md')).toBeUndefined();
});

test('a memory Claude changes behind the open editor shows up live, in the tree and the editor', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/project.md', 'Project: Atlas.', { mode: 'create', source: 'claude' });
  await expect(page.getByRole('treeitem', { name: 'project.md' })).toBeVisible();
  await page.getByRole('treeitem', { name: 'project.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Project: Atlas.');

  await vault().memory.writeFile('/memories/project.md', 'Project: Atlas. Deadline moved to March.', { mode: 'update', source: 'claude' });
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Deadline moved to March.');
  await expect(page.getByRole('status')).toContainText(/Claude just updated/);
  await vault().memory.writeFile('/memories/new-from-claude.md', 'fresh', { mode: 'create', source: 'claude' });
  await expect(page.getByRole('treeitem', { name: 'new-from-claude.md' })).toBeVisible();
  await shot(page, '12-memories-live-update');
});

test('saving over a change Claude made to the same line shows both texts and lets the user choose', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/plan.md', 'Plan: draft.', { mode: 'create', source: 'user' });
  await page.getByRole('treeitem', { name: 'plan.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Plan: draft.');

  await typeInEditor(page, 'Plan: written by the user.');
  await vault().memory.writeFile('/memories/plan.md', 'Plan: written by Claude.', { mode: 'update', source: 'claude' });
  await expect(page.getByRole('status')).toContainText(/changed elsewhere/);
  await page.keyboard.press('ControlOrMeta+S');

  const merge = page.getByRole('region', { name: 'Merge your edit with version 2' });
  await expect(merge).toContainText('written by Claude');
  await expect(merge).toContainText('written by the user');
  // Nothing was overwritten while the user decides.
  expect(await vault().memory.readFile('/memories/plan.md')).toBe('Plan: written by Claude.');
  await shot(page, '13-memories-conflict');
  // Escape closes the merge with nothing saved and the edit kept; saving asks again.
  await expect(merge.getByRole('heading', { name: 'Merge your edit with version 2' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(merge).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Plan: written by the user.');
  expect(await vault().memory.readFile('/memories/plan.md')).toBe('Plan: written by Claude.');
  await page.getByRole('textbox', { name: 'Editor' }).click();
  await page.keyboard.press('ControlOrMeta+S');
  await expect(merge).toContainText('written by Claude');

  await merge.getByRole('button', { name: 'Keep mine for change 1' }).click();
  await merge.getByRole('button', { name: 'Save merged text' }).click();
  await expect(merge).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/plan.md')).toBe('Plan: written by the user.');
  expect(await vault().readVersion('/memories/plan.md', 2)).toBe('Plan: written by Claude.');
});

test('taking Claude’s version in a conflict keeps Claude’s text and drops the draft', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/plan.md', 'Plan: draft.', { mode: 'create', source: 'user' });
  await page.getByRole('treeitem', { name: 'plan.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Plan: draft.');
  await typeInEditor(page, 'Plan: mine.');
  await vault().memory.writeFile('/memories/plan.md', 'Plan: theirs.', { mode: 'update', source: 'claude' });
  await page.keyboard.press('ControlOrMeta+S');
  const merge = page.getByRole('region', { name: /Merge your edit/ });
  await merge.getByRole('button', { name: 'Take theirs for change 1' }).click();
  await merge.getByRole('button', { name: 'Save merged text' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Plan: theirs.');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/plan.md')).toBe('Plan: theirs.');
  // Their text as it is: no new version for the same text.
  expect(vault().memory.stat('/memories/plan.md')).toMatchObject({ version: 2 });
});

test('restore an older version from history', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/diary.md', 'first version', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/diary.md', 'second version', { mode: 'update', source: 'claude' });
  await page.getByRole('treeitem', { name: 'diary.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('second version');

  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  await history.getByRole('button', { name: /^Version 1 / }).click();
  await expect(history).toContainText('first version');
  await shot(page, '14-memories-history');
  await history.getByRole('button', { name: 'Restore' }).click();

  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('first version');
  expect(await vault().memory.readFile('/memories/diary.md')).toBe('first version');
  expect(vault().memory.stat('/memories/diary.md')).toMatchObject({ version: 3 });
});

test('search across memories finds a line in a file that is not open', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/a.md', 'nothing here', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/b/c.md', 'line one\nthe kiwi fruit line', { mode: 'create', source: 'user' });
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('kiwi');
  await page.getByRole('searchbox', { name: 'Search memories' }).press('Enter');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results).toContainText('/memories/b/c.md:2');
  await results.getByRole('button', { name: /c\.md:2/ }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('the kiwi fruit line');
});

test('after lock no memory text remains in the page', async () => {
  const { page } = app;
  const secretText = 'Zanzibar-unique-memory-text-8841';
  await vault().memory.writeFile('/memories/private.md', `Remember: ${secretText}`, { mode: 'create', source: 'user' });
  await page.getByRole('treeitem', { name: 'private.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText(secretText);
  await page.getByRole('button', { name: 'History' }).click();

  await lock(page);
  const html = await page.content();
  expect(html).not.toContain(secretText);
  expect(html).not.toContain('private.md');
  const text = await page.evaluate(() => document.body.innerText + [...document.querySelectorAll('input, textarea')].map((i) => (i as HTMLInputElement).value).join('\n'));
  expect(text).not.toContain(secretText);
  await shot(page, '15-locked');
});
