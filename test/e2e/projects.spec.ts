/** Projects and temporary chats in the sidebar, end to end: real handlers, the real SDK, test/fake-anthropic as Claude. */
import { expect, test, type Page } from '@playwright/test';
import { Projects } from '../../electron/core/projects/store';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, lock, shot, unlock, eachWithFakeApi, type FreshApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;

eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const vault = () => app.session.unlocked();
async function send(page: Page, message: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}
const lastReply = (page: Page) => page.getByRole('article', { name: 'Claude' }).last();
const group = (page: Page, name: string) => page.getByRole('region', { name: `Project ${name}` });

test('a conversation made in a new project is listed under it and writes only to its memory; rename and delete are confirmed', async () => {
  const { page } = app;
  await expect(page.getByRole('combobox', { name: 'Project' })).toContainText('Default');
  await page.getByRole('button', { name: 'New project', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill('Garden');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(group(page, 'Garden')).toBeVisible();
  const garden = await new Projects(vault()).byName('Garden');
  await expect(page.getByRole('combobox', { name: 'Project' })).toContainText('Garden');

  // A duplicate name is refused with the reason.
  await page.getByRole('button', { name: 'New project', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill('garden');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('alert')).toContainText('already exists');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/roses.md', file_text: 'prune in march' })), reply(text('Noted for the garden.')));
  await send(page, 'Roses need pruning in March');
  await expect(lastReply(page)).toContainText('Noted for the garden.');
  await expect(group(page, 'Garden').getByRole('button', { name: 'Roses need pruning in March', exact: true })).toBeVisible();
  await expect(group(page, 'Default').getByText('No conversations yet.')).toBeVisible();
  expect(await (await new Projects(vault()).memoryVault(garden.id)).memory.readFile('/memories/roses.md')).toBe('prune in march');
  expect(vault().memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/.mnemo-projects']);
  await shot(page, '60-projects-sidebar');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('body')).toHaveCSS('color-scheme', /dark/);
  await shot(page, '60-projects-sidebar-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Undo acts on the conversation's project: a file of the same name in the first project stays as it is.
  await vault().memory.writeFile('/memories/roses.md', 'the first project\'s roses', { mode: 'create', source: 'user' });
  await page.getByRole('button', { name: 'created /memories/roses.md' }).click();
  // Offered in every project now: it opens the file of the conversation's project (memory-pane.spec.ts checks which file).
  await expect(page.getByRole('button', { name: 'Open in editor' })).toBeVisible();
  await page.getByRole('button', { name: 'Undo this change' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Undone' })).toBeVisible();
  expect((await new Projects(vault()).memoryVault(garden.id)).memory.stat('/memories/roses.md')).toBeUndefined();
  expect(await vault().memory.readFile('/memories/roses.md')).toBe("the first project's roses");

  await page.getByRole('button', { name: 'Rename project Garden' }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill('Allotment');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(group(page, 'Allotment')).toBeVisible();

  await page.getByRole('button', { name: 'Delete project Allotment' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete project' });
  await expect(confirm).toContainText('hidden, not destroyed');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(group(page, 'Allotment')).toBeVisible();
  await page.getByRole('button', { name: 'Delete project Allotment' }).click();
  await page.getByRole('alertdialog', { name: 'Delete project' }).getByRole('button', { name: 'Delete project' }).click();
  await expect(group(page, 'Allotment')).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Project' })).toContainText('Default');
  // Deleted, not destroyed: the project waits in the vault with its memory.
  expect((await new Projects(vault()).listDeleted()).map((p) => p.name)).toEqual(['Allotment']);
  expect((await new Projects(vault()).listDeleted())[0]!.id).toBe(garden.id);
});

test('a temporary chat reads memory but cannot write it, and is gone after a lock', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/likes.md', 'likes tea', { mode: 'create', source: 'user' });
  await page.getByRole('button', { name: 'New temporary chat' }).click();
  fake.script(reply(memoryCall({ command: 'view', path: '/memories/likes.md' }), memoryCall({ command: 'create', path: '/memories/secret.md', file_text: 'x' })), reply(text('I will forget this.')));
  await send(page, 'Just between us');
  await expect(lastReply(page)).toContainText('I will forget this.');
  const temp = group(page, 'Default').getByRole('button', { name: 'Temporary chat Just between us', exact: true });
  await expect(temp).toBeVisible();
  // Marked by a named icon before the title, inside the row whatever the title's length: an ellipsis cuts the title, never the mark.
  const badge = temp.getByRole('img', { name: 'Temporary chat' });
  await expect(badge).toBeVisible();
  // With a title too long for the list (set in place: the name changes with it), the mark stays whole at the start.
  const at = await temp.evaluate((el) => {
    el.querySelector('bdi')!.textContent = 'Just between us, with a title far too long for the narrow conversation list';
    const [row, mark, title] = [el, el.querySelector('[role="img"]')!, el.querySelector('bdi')!].map((e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right }; });
    return { row: row!, mark: mark!, title: title! };
  });
  expect(at.mark.left).toBeGreaterThanOrEqual(at.row.left);
  expect(at.mark.right).toBeLessThanOrEqual(at.title.left + 1);
  expect(at.title.right, 'the title is the one cut').toBeGreaterThan(at.row.right);
  expect(vault().memory.stat('/memories/secret.md')).toBeUndefined();
  expect(vault().internal.keys('conversations')).toEqual([]);
  await shot(page, '61-temporary-chat');

  await lock(page);
  await unlock(page);
  await expect(group(page, 'Default').getByText('No conversations yet.')).toBeVisible();
});

test('a deleted project is restored from the window with its conversations, and search results name their project', async () => {
  const { page } = app;
  await page.getByRole('button', { name: 'New project', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill('Garden');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(group(page, 'Garden')).toBeVisible();
  await newConversationButton(page).click();
  fake.script(reply(text('Tulips in autumn.')));
  await send(page, 'When do tulips go in?');
  await expect(lastReply(page)).toContainText('Tulips in autumn.');
  // The reply shows while it is being saved; search reads what is saved (once saved, the row bears its title). A
  // search sent before that found nothing, on a loaded machine (a fresh-clone run).
  await expect(group(page, 'Garden').getByRole('button', { name: 'When do tulips go in?', exact: true })).toBeVisible();

  // Search says which project each result is in.
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('tulips');
  await page.getByRole('searchbox', { name: 'Search conversations' }).press('Enter');
  await expect(page.getByRole('button', { name: /When do tulips go in\?.*in Garden/ })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');

  await page.getByRole('button', { name: 'Delete project Garden' }).click();
  await page.getByRole('alertdialog', { name: 'Delete project' }).getByRole('button', { name: 'Delete project' }).click();
  await expect(group(page, 'Garden')).toHaveCount(0);

  // Restoring is offered in the window, not only by the command line, and brings the conversations back.
  await page.getByRole('button', { name: 'Deleted projects (1)' }).click();
  const dialog = page.getByRole('dialog', { name: 'Deleted projects' });
  await expect(dialog).toContainText('Garden');
  await expectAccessible(page, 'deleted projects');
  await dialog.getByRole('button', { name: 'Restore Garden' }).click();
  await expect(group(page, 'Garden').getByRole('button', { name: 'When do tulips go in?', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /Deleted projects/ })).toHaveCount(0);
  expect(await new Projects(vault()).listDeleted()).toEqual([]);
});

test('the project picker is a listbox like the model picker: arrows, Enter, Escape and type-ahead, with focus kept on it', async () => {
  const { page } = app;
  for (const name of ['Garden', 'Kitchen']) await new Projects(vault()).create(name);
  // Listed again once the window is shown again after a lock.
  await lock(page);
  await unlock(page);
  const picker = page.getByRole('combobox', { name: 'Project', exact: true });
  const list = page.getByRole('listbox', { name: 'Project', exact: true });
  await expect(picker).toContainText('Default');
  expect(await picker.evaluate((el) => el.tagName), 'not a native select').not.toBe('SELECT');
  await expect(picker).toHaveAttribute('aria-expanded', 'false');

  await picker.focus();
  await page.keyboard.press('ArrowDown');
  await expect(list).toBeVisible();
  await expect(picker).toHaveAttribute('aria-expanded', 'true');
  await expect(list.getByRole('option')).toHaveText(['Default', 'Garden', 'Kitchen']);
  await expect(list.getByRole('option', { name: 'Default' })).toHaveAttribute('aria-selected', 'true');
  await expectAccessible(page, 'the project listbox open');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(list).toBeHidden();
  await expect(picker).toContainText('Garden');
  await expect(picker).toBeFocused();

  // Escape closes without a change; focus stays on the picker.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();
  await expect(picker).toContainText('Garden');
  await expect(picker).toBeFocused();

  // Typing a name's first letters picks it.
  await page.keyboard.press('k');
  await expect(list).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(picker).toContainText('Kitchen');
  await expect(picker).toBeFocused();
});
