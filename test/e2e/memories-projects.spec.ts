/** The Memories tab for every project (issue 12): a labelled project picker, and every action on the picked project's memory. */
import { expect, test, type Page } from '@playwright/test';
import { Projects } from '../../electron/core/projects/store';
import { eachWithFakeApi, expectAccessible, openMemories, typeInEditor, type FreshApp } from './helpers';

let app: FreshApp;
eachWithFakeApi((a) => (app = a), { ready: true });

const vault = () => app.session.unlocked();
const picker = (page: Page) => page.getByRole('combobox', { name: 'Memories of project' });
const editor = (page: Page) => page.getByRole('textbox', { name: 'Editor' });

async function newProject(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'New project', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('region', { name: `Project ${name}` })).toBeVisible();
  return (await new Projects(vault()).byName(name)).id;
}

test("the picked project's memory is what the Memories tab lists, opens, creates, searches, renames, deletes and restores", async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/roses.md', "the first project's roses", { mode: 'create', source: 'user' });
  const garden = await newProject(page, 'Garden');
  const gardenVault = await new Projects(vault()).memoryVault(garden);
  await gardenVault.memory.writeFile('/memories/roses.md', 'garden roses', { mode: 'create', source: 'user' });
  await openMemories(page);
  await expect(picker(page)).toHaveValue('default');

  // By keyboard: the picker is a native select, reached by Tab from the list toggle.
  await picker(page).focus();
  await picker(page).selectOption({ label: 'Garden' });
  await expect(picker(page)).toHaveValue(garden);
  await page.getByRole('treeitem', { name: /roses\.md/ }).click();
  await expect(editor(page)).toContainText('garden roses');
  await expectAccessible(page, 'the memories of a non-first project');

  // Create: into Garden only.
  await page.getByRole('button', { name: 'New memory' }).click();
  await page.getByLabel('Path of the new memory').fill('/memories/beds.md');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: /beds\.md/ })).toBeVisible();
  expect(gardenVault.memory.stat('/memories/beds.md')).toBeDefined();
  expect(vault().memory.stat('/memories/beds.md')).toBeUndefined();

  // Search: finds Garden's text, not the first project's.
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('roses');
  await page.getByRole('searchbox', { name: 'Search memories' }).press('Enter');
  const hits = page.getByRole('list', { name: 'Search results' });
  await expect(hits).toContainText('garden roses');
  await expect(hits).not.toContainText("the first project's roses");
  await hits.getByRole('button', { name: 'Back to all memories' }).click();

  // Rename and delete act on Garden's file; the first project's file of the same name stays.
  await page.getByRole('treeitem', { name: /roses\.md/ }).click();
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('New path').fill('/memories/old-roses.md');
  await page.getByRole('button', { name: 'Rename', exact: true }).last().click();
  await expect(page.getByRole('treeitem', { name: /old-roses\.md/ })).toBeVisible();
  expect(await gardenVault.memory.readFile('/memories/old-roses.md')).toBe('garden roses');
  await page.getByRole('toolbar', { name: 'Memory actions' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('treeitem', { name: /old-roses\.md/ })).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/roses.md')).toBe("the first project's roses");

  // Trash: Garden's trash lists it and restores it into Garden.
  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('region', { name: 'Trash' });
  await trash.getByRole('button', { name: /old-roses\.md/ }).click();
  await trash.getByRole('button', { name: /^Restore/ }).first().click();
  await expect(page.getByRole('treeitem', { name: /old-roses\.md/ })).toBeVisible();
  expect(await gardenVault.memory.readFile('/memories/old-roses.md')).toBe('garden roses');

  // Back to the first project: its own file.
  await picker(page).selectOption('default');
  await page.getByRole('treeitem', { name: /roses\.md/ }).first().click();
  await expect(editor(page)).toContainText("the first project's roses");
});

test('switching project with an unsaved edit asks in the page (not a browser prompt), and Keep editing keeps the text', async () => {
  const { page } = app;
  const prompts: string[] = [];
  page.on('dialog', (d) => {
    prompts.push(d.message());
    void d.dismiss();
  });
  await vault().memory.writeFile('/memories/notes.md', 'saved', { mode: 'create', source: 'user' });
  const garden = await newProject(page, 'Garden');
  await openMemories(page);
  await page.getByRole('treeitem', { name: /notes\.md/ }).click();
  await typeInEditor(page, 'unsaved 9931');
  await picker(page).selectOption(garden);
  const ask = page.getByRole('alertdialog', { name: 'Unsaved changes' });
  await expect(ask).toContainText('Discard your unsaved changes to this memory?');
  await expect(ask.getByRole('button', { name: 'Keep editing' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(ask).toHaveCount(0);
  await expect(picker(page)).toHaveValue('default');
  await expect(editor(page)).toContainText('unsaved 9931');

  await picker(page).selectOption(garden);
  await page.getByRole('alertdialog', { name: 'Unsaved changes' }).getByRole('button', { name: 'Discard changes' }).click();
  await expect(picker(page)).toHaveValue(garden);
  await expect(page.getByRole('treeitem', { name: /notes\.md/ })).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('saved');
  expect(prompts).toEqual([]);
});

test("a memory is copied, then moved with its history, to another project from the editor; each lands in that project's memory", async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/tea.md', 'green tea', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/tea.md', 'green tea, no sugar', { mode: 'update', source: 'user' });
  const garden = await newProject(page, 'Garden');
  const gardenVault = await new Projects(vault()).memoryVault(garden);
  await openMemories(page);
  await page.getByRole('treeitem', { name: /tea\.md/ }).click();
  await expect(editor(page)).toContainText('green tea, no sugar');

  await page.getByRole('button', { name: 'Move or copy…' }).click();
  const form = page.getByRole('form', { name: 'Move or copy to another project' });
  await expect(form.getByLabel('To project')).toBeFocused();
  await expect(form.getByLabel('To project')).toHaveValue(garden);
  await form.getByLabel('Path there').fill('/memories/copied-tea.md');
  await form.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Copied to Garden.' })).toBeVisible();
  expect(await gardenVault.memory.readFile('/memories/copied-tea.md')).toBe('green tea, no sugar');
  expect(await vault().memory.readFile('/memories/tea.md')).toBe('green tea, no sugar');

  await page.getByRole('button', { name: 'Move or copy…' }).click();
  await form.getByRole('radio', { name: /^Move/ }).check();
  await form.getByRole('button', { name: 'Move', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: /^tea\.md/ })).toHaveCount(0);
  expect(vault().memory.stat('/memories/tea.md')).toBeUndefined();
  expect(await gardenVault.memory.readFile('/memories/tea.md')).toBe('green tea, no sugar');
  expect(gardenVault.history('/memories/tea.md').length).toBeGreaterThanOrEqual(1);
  await picker(page).selectOption(garden);
  await expect(page.getByRole('treeitem', { name: /^tea\.md/ })).toBeVisible();
});
