/**
 * Issue 20, the editor's three-way merge: a change written elsewhere (Claude,
 * through the vault as the memory tool writes) while the user edits is merged
 * on save. Other lines: both kept, no question. The same lines: the user keeps
 * theirs or takes Claude's per change, by keyboard, then saves; every version
 * stays in history. One app for the spec; each test uses its own file.
 */
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible, lock, openMemories, typeInEditor, unlock, type FreshApp, readyApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
test.beforeAll(async () => {
  app = await readyApp();
  await openMemories(app.page);
});
test.afterAll(async () => app?.cleanup());

const vault = () => app.session.unlocked();
const editor = (page: Page) => page.getByRole('textbox', { name: 'Editor' });
const lines = (...l: string[]) => l.join('\n');

async function open(page: Page, path: string, text: string): Promise<void> {
  await vault().memory.writeFile(path, text, { mode: 'create', source: 'user' });
  const name = path.split('/').at(-1)!;
  await page.getByRole('treeitem', { name }).click();
  await expect(editor(page)).toContainText(text.split('\n')[0]!);
}

test('a change Claude made to other lines while the user edited is merged on save: both kept, no question asked', async () => {
  const { page } = app;
  const path = '/memories/merge-clean.md';
  const base = lines('# Trip', 'Flight: Monday', 'Hotel: none yet', 'Budget: 900', 'Notes: -');
  await open(page, path, base);
  await typeInEditor(page, lines('# Trip', 'Flight: Tuesday', 'Hotel: none yet', 'Budget: 900', 'Notes: -'));
  await vault().memory.writeFile(path, lines('# Trip', 'Flight: Monday', 'Hotel: none yet', 'Budget: 900', 'Notes: bring the charger'), { mode: 'update', source: 'claude' });
  await expect(page.getByRole('status')).toContainText(/changed elsewhere/);

  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByRole('status')).toContainText('merged with a change made elsewhere');
  const merged = lines('# Trip', 'Flight: Tuesday', 'Hotel: none yet', 'Budget: 900', 'Notes: bring the charger');
  expect(await vault().memory.readFile(path)).toBe(merged);
  await expect(editor(page)).toContainText('Flight: Tuesday');
  await expect(editor(page)).toContainText('Notes: bring the charger');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  await expect(page.getByRole('region', { name: /Merge your edit/ })).toHaveCount(0);
  // Claude's version is kept in history under the merged one.
  expect(vault().memory.stat(path)).toMatchObject({ version: 3 });
  expect(await vault().readVersion(path, 2)).toContain('Notes: bring the charger');
  expect(await vault().readVersion(path, 2)).toContain('Flight: Monday');
});

test('changes to the same lines are chosen per change by keyboard — Keep mine, Take theirs — and Save writes the merge as a new version', async () => {
  const { page } = app;
  const path = '/memories/merge-overlap.md';
  const base = lines('A', 'B', 'C', 'D', 'E', 'F', 'G');
  const theirs = lines('A', 'B by Claude', 'C', 'D by Claude', 'E', 'F by Claude', 'G');
  await open(page, path, base);
  await typeInEditor(page, lines('A', 'B by me', 'C', 'D', 'E', 'F by me', 'G'));
  await vault().memory.writeFile(path, theirs, { mode: 'update', source: 'claude' });
  await expect(page.getByRole('status')).toContainText(/changed elsewhere/);
  await page.keyboard.press('ControlOrMeta+S');

  const merge = page.getByRole('region', { name: 'Merge your edit with version 2' });
  await expect(merge.getByRole('heading', { name: 'Merge your edit with version 2' })).toBeFocused();
  const first = merge.getByRole('group', { name: /Change 1 of 2/ });
  const second = merge.getByRole('group', { name: /Change 2 of 2/ });
  await expect(first).toContainText('B by me');
  await expect(first).toContainText('B by Claude');
  await expect(second).toContainText('F by me');
  await expect(second).toContainText('F by Claude');
  // The clean change in between is already in, shown as context; nothing is written while the user decides.
  await expect(merge).toContainText('D by Claude');
  await expect(merge.getByRole('button', { name: 'Save merged text' })).toBeDisabled();
  await expect(merge).toContainText('2 of 2 changes left to choose.');
  expect(await vault().memory.readFile(path)).toBe(theirs);
  await expectAccessible(page, 'the merge view');

  // Escape goes back to the editor with the user's text as it was; saving again merges again.
  await page.keyboard.press('Escape');
  await expect(merge).toHaveCount(0);
  await expect(editor(page)).toBeFocused();
  await expect(editor(page)).toContainText('B by me');
  expect(await vault().memory.readFile(path)).toBe(theirs);
  await page.keyboard.press('ControlOrMeta+S');
  await expect(merge.getByRole('heading', { name: 'Merge your edit with version 2' })).toBeFocused();

  // Keyboard only: Tab to the first choice; each first choice moves on to the next change, then to Save.
  const keepFirst = first.getByRole('button', { name: 'Keep mine for change 1' });
  for (let n = 0; n < 6 && !(await keepFirst.evaluate((el) => el === document.activeElement)); n++) await page.keyboard.press('Tab');
  await expect(keepFirst).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(keepFirst).toHaveAttribute('aria-pressed', 'true');
  await expect(second.getByRole('button', { name: 'Keep mine for change 2' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second.getByRole('button', { name: 'Take theirs for change 2' })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(merge).toContainText('All chosen.');
  await expect(merge.getByRole('button', { name: 'Save merged text' })).toBeFocused();
  await page.keyboard.press('Enter');

  const result = lines('A', 'B by me', 'C', 'D by Claude', 'E', 'F by Claude', 'G');
  await expect(merge).toHaveCount(0);
  expect(await vault().memory.readFile(path)).toBe(result);
  await expect(editor(page)).toBeFocused();
  await expect(editor(page)).toContainText('B by me');
  await expect(editor(page)).toContainText('F by Claude');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  // History holds the original, Claude's version, and the merge.
  expect(vault().memory.stat(path)).toMatchObject({ version: 3 });
  expect(await vault().readVersion(path, 1)).toBe(base);
  expect(await vault().readVersion(path, 2)).toBe(theirs);
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  await expect(history.getByRole('button', { name: /^Version 3 \(current\)/ })).toBeVisible();
  await expect(history.getByRole('button', { name: /^Version 2/ })).toContainText('Claude');
  await page.getByRole('button', { name: 'History' }).click();
});

test('a change that lands while the user is choosing is merged into the saved result too', async () => {
  const { page } = app;
  const path = '/memories/merge-race.md';
  await open(page, path, lines('one', 'two', 'three', 'four', 'five'));
  await typeInEditor(page, lines('one (me)', 'two', 'three', 'four', 'five'));
  await vault().memory.writeFile(path, lines('one (Claude)', 'two', 'three', 'four', 'five'), { mode: 'update', source: 'claude' });
  await page.keyboard.press('ControlOrMeta+S');
  const merge = page.getByRole('region', { name: 'Merge your edit with version 2' });
  await merge.getByRole('button', { name: 'Keep mine for change 1' }).click();
  // Claude writes again, on another line, before the user saves the merge.
  await vault().memory.writeFile(path, lines('one (Claude)', 'two', 'three', 'four', 'five (Claude, later)'), { mode: 'update', source: 'claude' });
  await merge.getByRole('button', { name: 'Save merged text' }).click();
  await expect(merge).toHaveCount(0);
  expect(await vault().memory.readFile(path)).toBe(lines('one (me)', 'two', 'three', 'four', 'five (Claude, later)'));
  expect(vault().memory.stat(path)).toMatchObject({ version: 4 });
});

test('an edit a lock kept merges with a change written before it was restored: the base comes from history', async () => {
  const { page } = app;
  const path = '/memories/merge-after-lock.md';
  await open(page, path, lines('alpha', 'beta', 'gamma', 'delta', 'epsilon'));
  await typeInEditor(page, lines('alpha (kept through the lock)', 'beta', 'gamma', 'delta', 'epsilon'));
  await lock(page);
  await unlock(page);
  // Claude writes another line before the user takes the kept edit back.
  await vault().memory.writeFile(path, lines('alpha', 'beta', 'gamma', 'delta', 'epsilon (Claude)'), { mode: 'update', source: 'claude' });
  await page.getByRole('group', { name: 'Unsaved work' }).getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(editor(page)).toContainText('alpha (kept through the lock)');
  await editor(page).click();
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByRole('status')).toContainText('merged with a change made elsewhere');
  expect(await vault().memory.readFile(path)).toBe(lines('alpha (kept through the lock)', 'beta', 'gamma', 'delta', 'epsilon (Claude)'));
});
