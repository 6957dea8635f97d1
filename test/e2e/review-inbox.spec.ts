/**
 * The review inbox end to end: what Claude writes with approval off is
 * counted on the Memories tab, marked in the tree, shown as a diff since the
 * last review, and marked reviewed per file or all at once.
 */
import { expect, test, type Page } from '@playwright/test';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { eachWithFakeApi, expectAccessible, sendFromChatTab, shot, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const HOSTILE = '<script>window.pwned = 1</script>\n# **Not a heading** [click](javascript:window.pwned=2)\n<img src=x onerror="window.pwned=3">\n';

const memoriesTab = (page: Page) => page.getByRole('tab', { name: /^Memories/ });

test('Claude\'s writes are counted, marked, diffed and marked reviewed one by one or all at once', async () => {
  const { page } = app;
  fake.script(
    reply(text('Noting that.'), memoryCall({ command: 'create', path: '/memories/trip.md', file_text: 'Trip: Lisbon\nWhen: May\n' }), memoryCall({ command: 'create', path: '/memories/notes.md', file_text: HOSTILE })),
    reply(text('Noted.')),
  );
  await sendFromChatTab(page, 'Plan my trip.');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 2 to review');

  await memoriesTab(page).click();
  await expect(page.getByRole('treeitem', { name: 'trip.md' })).toHaveAccessibleDescription(/^New from Claude, not reviewed\./);
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  const list = pane.getByRole('list', { name: 'Changes to review' });
  // Opening the pane puts focus on the first change.
  await expect(list.getByRole('button', { name: /notes\.md/ })).toBeFocused();
  await list.getByRole('button', { name: /trip\.md/ }).click();
  const diff = pane.getByRole('group', { name: 'Text of version 1' });
  await expect(diff.locator('.added .text')).toHaveText(['Trip: Lisbon', 'When: May']);
  await expectAccessible(page, 'the review inbox');

  // Marked by keyboard: the count drops and focus moves on to the next change.
  await pane.getByRole('button', { name: 'Mark reviewed' }).focus();
  await page.keyboard.press('Enter');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 1 to review');
  await expect(list.getByRole('button', { name: /notes\.md/ })).toBeFocused();
  await expect(page.getByRole('treeitem', { name: 'trip.md' })).not.toHaveAccessibleDescription(/not reviewed/);

  // Hostile memory text is shown as text: no script runs, no element is made from it.
  await page.keyboard.press('Enter');
  const hostile = pane.getByRole('group', { name: 'Text of version 1' });
  await expect(hostile.locator('.added .text')).toHaveText(HOSTILE.trimEnd().split('\n'));
  await expect(pane.locator('script, img, a, h1')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

  // Claude changes the reviewed memory again: it is back, diffed from the reviewed version.
  fake.script(reply(memoryCall({ command: 'str_replace', path: '/memories/trip.md', old_str: 'Lisbon', new_str: 'Porto' })), reply(text('Changed.')));
  await sendFromChatTab(page, 'Make it Porto.');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 2 to review');
  await memoriesTab(page).click();
  await expect(page.getByRole('treeitem', { name: 'trip.md' })).toHaveAccessibleDescription(/^Changed by Claude, not reviewed\./);
  await pane.getByRole('list', { name: 'Changes to review' }).getByRole('button', { name: /trip\.md/ }).click();
  const changed = pane.getByRole('group', { name: 'Changes since version 1, which you reviewed' });
  await expect(changed.locator('.removed .text')).toHaveText(['Trip: Lisbon']);
  await expect(changed.locator('.added .text')).toHaveText(['Trip: Porto']);
  await expectAccessible(page, 'the review inbox with a changed memory');
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await shot(page, `review-inbox-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  await pane.getByRole('button', { name: 'Mark all reviewed' }).click();
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories');
  await expect(pane.getByText(/Nothing to review/)).toBeVisible();
  await expect(pane.getByRole('heading', { name: 'To review' })).toBeFocused();
  await expectAccessible(page, 'the empty review inbox');
});

test('a memory Claude deleted is listed with its last text and a way to the trash; one Claude moved says where from', async () => {
  const { page } = app;
  const vault = app.session.unlocked();
  await vault.memory.writeFile('/memories/old.md', 'Keep this\n', { mode: 'create', source: 'user' });
  await vault.memory.writeFile('/memories/mine.md', 'Mine\n', { mode: 'create', source: 'user' });
  fake.script(reply(memoryCall({ command: 'delete', path: '/memories/old.md' }), memoryCall({ command: 'rename', old_path: '/memories/mine.md', new_path: '/memories/theirs.md' })), reply(text('Tidied up.')));
  await sendFromChatTab(page, 'Tidy my memory.');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 2 to review');
  await memoriesTab(page).click();
  await expect(page.getByRole('treeitem', { name: 'theirs.md' })).toHaveAccessibleDescription(/^Moved here by Claude, not reviewed\./);
  await page.getByRole('button', { name: 'To review 2', exact: true }).click();
  const pane = page.getByRole('region', { name: 'To review' });
  const list = pane.getByRole('list', { name: 'Changes to review' });
  await expect(list.getByRole('button', { name: /theirs\.md/ })).toContainText('moved here by Claude');
  await list.getByRole('button', { name: /old\.md/ }).click();
  await expect(pane.getByRole('group', { name: 'Text of /memories/old.md when it was deleted' }).locator('.removed .text')).toHaveText(['Keep this']);
  await expectAccessible(page, 'a deleted memory in the review inbox');
  await pane.getByRole('button', { name: 'Open the trash' }).click();
  // Focus lands on the deleted memory in the trash, where it can be restored.
  await expect(page.getByRole('region', { name: 'Trash' }).getByRole('button', { name: /\/memories\/old\.md/ })).toBeFocused();
});
