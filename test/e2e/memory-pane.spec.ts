/** Memory beside the chat (issue 12): the pane, chips of any project, live changes, drafts, hostile names. */
import { expect, test, type Page } from '@playwright/test';
import { Projects } from '../../electron/core/projects/store';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { eachWithFakeApi, expectAccessible, lock, shot, typeInEditor, unlock, type FreshApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const vault = () => app.session.unlocked();
const pane = (page: Page) => page.locator('#memory-pane');
const toggle = (page: Page) => page.getByRole('button', { name: 'Memory', exact: true });
const editor = (page: Page) => page.getByRole('textbox', { name: 'Editor' });

async function send(page: Page, message: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}
/** A project made in the sidebar, as a person would; it becomes the picked one. Returns its id. */
async function newProject(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'New project', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project name' }).fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('region', { name: `Project ${name}` })).toBeVisible();
  const made = await new Projects(vault()).byName(name);
  await expect(page.getByRole('combobox', { name: 'Project', exact: true })).toContainText(name);
  return made.id;
}
const projectVault = async (id: string) => new Projects(vault()).memoryVault(id);
/** Widths of the conversation column, from the page's layout. */
const conversationWidth = (page: Page) => page.locator('.conversation').evaluate((el) => el.getBoundingClientRect().width);

test('the memory pane opens and closes by keyboard with focus placed on purpose, resizes by arrows on its separator, and keeps the conversation usable at 900×650', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/notes.md', '# Notes\nTea, no sugar.', { mode: 'create', source: 'user' });
  await expect(page.getByText('Ctrl+Shift+M shows memory beside the chat')).toBeVisible();
  await expect(toggle(page)).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('ControlOrMeta+Shift+M');
  await expect(toggle(page)).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('complementary', { name: 'Memory of Default' })).toBeVisible();
  // Focus lands in the pane's tree, where work starts; Enter opens the file.
  const item = pane(page).getByRole('treeitem', { name: /notes\.md/ });
  await expect(item).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(pane(page).getByRole('textbox', { name: 'Editor' })).toContainText('Tea, no sugar.');

  const separator = page.getByRole('separator', { name: 'Resize memory pane' });
  const before = Number(await separator.getAttribute('aria-valuenow'));
  await separator.focus();
  // The separator is on the pane's left edge: left widens the pane, right narrows it.
  await page.keyboard.press('ArrowLeft');
  await expect(separator).toHaveAttribute('aria-valuenow', String(before + 16));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(separator).toHaveAttribute('aria-valuenow', String(before - 16));
  await expectAccessible(page, 'chat with the memory pane open');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `memory-pane-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // At 900×650 the conversation keeps a usable width, even with the pane made as wide as it goes.
  await page.setViewportSize({ width: 900, height: 650 });
  await separator.focus();
  await page.keyboard.press('End');
  await expect.poll(() => conversationWidth(page)).toBeGreaterThanOrEqual(380);
  // …and is not covered by the pane: it ends where the pane (after the toggle and separator) begins.
  const paneLeft = await pane(page).evaluate((el) => el.getBoundingClientRect().left);
  expect(await page.locator('.conversation').evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(paneLeft);
  expect(await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(paneLeft);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await shot(page, 'memory-pane-900x650-light');

  // The conversation list gives way to the pane here, but a toggle at the chat's left edge stays in sight and brings it
  // back over the conversation; Escape puts it away and focus returns to the toggle.
  const list = page.getByRole('navigation', { name: 'Conversations' });
  const listToggle = page.getByRole('button', { name: 'Conversations', exact: true });
  await expect(list).toBeHidden();
  await expect(listToggle).toBeVisible();
  const t = (await listToggle.boundingBox())!;
  expect(t.x).toBeGreaterThanOrEqual(0);
  expect(t.x + t.width).toBeLessThanOrEqual(paneLeft);
  await expect(listToggle).toHaveAttribute('aria-expanded', 'false');
  await listToggle.focus();
  await page.keyboard.press('Enter');
  await expect(listToggle).toHaveAttribute('aria-expanded', 'true');
  await expect(list).toBeVisible();
  await expect.poll(() => list.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  const l = (await list.boundingBox())!;
  expect(l.x, 'the list is over the chat, beside its toggle').toBeGreaterThanOrEqual(t.x + t.width - 1);
  expect(l.x + l.width).toBeLessThanOrEqual(paneLeft);
  await expectAccessible(page, 'the conversation list over the chat at 900×650');
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();
  await expect(listToggle).toBeFocused();
  await expect(listToggle).toHaveAttribute('aria-expanded', 'false');
  await separator.focus();

  // Closing by the shortcut gives focus back to the toggle; the width is remembered for next time.
  await page.keyboard.press('ControlOrMeta+Shift+M');
  await expect(toggle(page)).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('complementary', { name: 'Memory of Default' })).toBeHidden();
  await expect(toggle(page)).toBeFocused();
  // With the pane closed the list is back beside the chat, and its toggle is gone.
  await expect(page.getByRole('navigation', { name: 'Conversations' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Conversations', exact: true })).toHaveCount(0);
  const kept = await page.evaluate(() => localStorage.getItem('mnemo.pane.memory'));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('separator', { name: 'Resize memory pane' })).toHaveAttribute('aria-valuenow', kept!);
});

test("a chip's Open in editor in a non-first project opens that project's file in the pane, not the first project's file of the same name", async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/roses.md', "the first project's roses", { mode: 'create', source: 'user' });
  const garden = await newProject(page, 'Garden');
  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/roses.md', file_text: 'garden roses: prune in March' })), reply(text('Noted for the garden.')));
  await send(page, 'Roses need pruning in March');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted for the garden.');
  await page.getByRole('button', { name: 'created /memories/roses.md' }).click();
  await page.getByRole('button', { name: 'Open in editor' }).click();
  await expect(page.getByRole('complementary', { name: 'Memory of Garden' })).toBeVisible();
  await expect(editor(page)).toContainText('garden roses: prune in March');
  await expect(editor(page)).toBeFocused();
  expect(await (await projectVault(garden)).memory.readFile('/memories/roses.md')).toBe('garden roses: prune in March');
  // The sidebar groups both projects; the pane shows the non-first one's memory.
  await expect(page.getByRole('region', { name: 'Project Default' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Project Garden' })).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `projects-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test("a file Claude creates while the pane is open shows in the pane's tree during the reply, and the open file reloads with Claude's edit", async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/notes.md', 'likes: tea', { mode: 'create', source: 'user' });
  await toggle(page).click();
  await pane(page).getByRole('treeitem', { name: /notes\.md/ }).click();
  await expect(editor(page)).toContainText('likes: tea');
  fake.script(
    reply(memoryCall({ command: 'create', path: '/memories/plants.md', file_text: 'ferns' }), memoryCall({ command: 'str_replace', path: '/memories/notes.md', old_str: 'tea', new_str: 'green tea' })),
    // A slow last reply: the tree is checked while it still streams.
    { ...reply(text('Saved both. '.repeat(60))), delayMs: 60, chunk: 2 },
  );
  await send(page, 'Remember ferns, and that it is green tea');
  await expect(pane(page).getByRole('treeitem', { name: /plants\.md/ })).toBeVisible();
  await expect(editor(page)).toContainText('likes: green tea');
  await expect(pane(page).getByRole('status').filter({ hasText: 'Claude just updated this memory.' })).toBeVisible();
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Saved both.');
});

test('an unsaved edit in the pane survives a lock (even after another file opens in the Memories tab) and is restored into its own project', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/roses.md', "the first project's roses", { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/other.md', 'other', { mode: 'create', source: 'user' });
  const garden = await newProject(page, 'Garden');
  await (await projectVault(garden)).memory.writeFile('/memories/roses.md', 'garden roses', { mode: 'create', source: 'user' });
  await newConversationButton(page).click();
  await toggle(page).click();
  await expect(page.getByRole('complementary', { name: 'Memory of Garden' })).toBeVisible();
  await pane(page).getByRole('treeitem', { name: /roses\.md/ }).click();
  await expect(editor(page)).toContainText('garden roses');
  await typeInEditor(page, 'garden roses, unsaved 4471');
  // A second editor opening a file must not discard the pane's edit.
  await page.getByRole('tab', { name: 'Memories' }).click();
  await page.getByRole('treeitem', { name: /other\.md/ }).click();
  await expect(editor(page)).toContainText('other');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await lock(page);
  await unlock(page);
  const offer = page.getByRole('group', { name: 'Unsaved work' });
  await expect(offer).toContainText('Restore unsaved edit of /memories/roses.md?');
  await offer.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByRole('combobox', { name: 'Memories of project' })).toHaveValue(garden);
  await expect(editor(page)).toContainText('garden roses, unsaved 4471');
  await expect(editor(page)).toBeFocused();
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await (await projectVault(garden)).memory.readFile('/memories/roses.md')).toBe('garden roses, unsaved 4471');
  expect(await vault().memory.readFile('/memories/roses.md')).toBe("the first project's roses");
});

test('the same file edited in the pane and in the Memories tab is never overwritten silently: the later save merges, asking where both changed', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/notes.md', 'start', { mode: 'create', source: 'user' });
  await page.getByRole('tab', { name: 'Memories' }).click();
  await page.getByRole('treeitem', { name: /notes\.md/ }).click();
  await typeInEditor(page, 'typed in the Memories tab');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await toggle(page).click();
  await pane(page).getByRole('treeitem', { name: /notes\.md/ }).click();
  await expect(editor(page)).toContainText('start');
  await typeInEditor(page, 'typed in the pane');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(pane(page).getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('typed in the pane');

  await page.getByRole('tab', { name: 'Memories' }).click();
  await expect(editor(page)).toContainText('typed in the Memories tab');
  await expect(page.getByRole('status').filter({ hasText: 'changed elsewhere' })).toBeVisible();
  await editor(page).click();
  await page.keyboard.press('ControlOrMeta+S');
  const merge = page.getByRole('region', { name: 'Merge your edit with version 2' });
  await expect(merge).toBeVisible();
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('typed in the pane');
  await merge.getByRole('button', { name: 'Keep mine for change 1' }).click();
  await merge.getByRole('button', { name: 'Save merged text' }).click();
  await expect(merge).toHaveCount(0);
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('typed in the Memories tab');
});

test('hostile names render as text, and a chip whose project was deleted says so instead of showing a blank pane', async () => {
  const { page } = app;
  const alerts: string[] = [];
  page.on('dialog', (d) => {
    alerts.push(d.message());
    void d.dismiss();
  });
  const hostile = '<img src=x onerror=alert(1)>';
  const id = await newProject(page, hostile);
  await (await projectVault(id)).memory.writeFile('/memories/<img src=y onerror=alert(2)>.md', 'markup name', { mode: 'create', source: 'user' });
  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'view', path: '/memories/<img src=y onerror=alert(2)>.md' })), reply(text('Read it.')));
  await send(page, 'Read the bold one');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Read it.');
  await toggle(page).click();
  await expect(pane(page).getByRole('heading', { name: `Memory of ${hostile}` })).toBeVisible();
  await expect(pane(page).getByRole('treeitem', { name: /<img src=y onerror=alert\(2\)>\.md/ })).toBeVisible();
  await expect(pane(page).locator('img')).toHaveCount(0);

  // The project goes while its conversation is open (deleted elsewhere); its chip then says why nothing opens.
  await new Projects(vault()).delete(id);
  await page.getByRole('button', { name: 'viewed /memories/<img src=y onerror=alert(2)>.md' }).click();
  await page.getByRole('button', { name: 'Open in editor' }).click();
  const why = pane(page).getByRole('alert');
  await expect(why).toContainText('That project does not exist (it may have been deleted)');
  await expect(why).toBeFocused();
  await expect(page.locator('img')).toHaveCount(0);
  expect(alerts).toEqual([]);
});

test("opening a conversation of another project keeps the pane's unsaved edit and offers to follow, asking first", async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/notes.md', 'saved', { mode: 'create', source: 'user' });
  await toggle(page).click();
  await pane(page).getByRole('treeitem', { name: /notes\.md/ }).click();
  await typeInEditor(page, 'unsaved 5120');
  await newProject(page, 'Garden');
  await newConversationButton(page).click();
  const note = pane(page).getByRole('status').filter({ hasText: 'the open conversation is in Garden' });
  await expect(note).toContainText('This pane shows Default');
  await expect(editor(page)).toContainText('unsaved 5120');
  await note.getByRole('button', { name: 'Show Garden' }).click();
  const ask = pane(page).getByRole('alertdialog', { name: 'Unsaved changes' });
  await ask.getByRole('button', { name: 'Keep editing' }).click();
  await expect(editor(page)).toContainText('unsaved 5120');
  await note.getByRole('button', { name: 'Show Garden' }).click();
  await ask.getByRole('button', { name: 'Discard changes' }).click();
  await expect(page.getByRole('complementary', { name: 'Memory of Garden' })).toBeVisible();
  await expect(pane(page).getByText('No memories in Garden yet.')).toBeVisible();
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('saved');
});
