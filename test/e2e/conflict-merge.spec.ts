/**
 * Issue 18: an edit conflict between computers opened in a merge view from the review inbox, by keyboard. The version
 * set aside is compared with the result (which starts as the version kept); changes are taken from it, the result is
 * edited and saved as the user's own version, which settles the conflict (gone from the inbox and from what `mnemo
 * review` lists). Cancel keeps everything and asks before dropping typed text; a save arriving meanwhile is not
 * overwritten silently; a delete-vs-edit conflict offers no merge; hostile text stays text.
 */
import { expect, test, type Page } from '@playwright/test';
import { ReviewInbox } from '../../electron/core/review/inbox';
import { expectAccessible, lineDirections, lock, readyApp, unlock, type FreshApp } from './helpers';
import { conflictWithLaptop, type PlanTexts } from './two-computers';

let app: FreshApp;
const PLAN = '/memories/plan.md';
const memoriesTab = (page: Page) => page.getByRole('tab', { name: /^Memories/ });
const mergeRegion = (page: Page) => page.getByRole('region', { name: 'Merge the versions from both computers' });
const result = (page: Page) => page.getByRole('textbox', { name: 'Merged result (editable)' });
/** What `mnemo review` lists (the same inbox the CLI reads), as path and kind. */
const listed = async () => (await new ReviewInbox(app.session.unlocked()).list()).map((e) => `${e.path} ${e.conflict?.what ?? e.kind}`);

/**
 * Both computers edit the meeting line (so the sync's line merge fails); this computer also adds a line at the top and
 * Laptop one at the end, changes that do not overlap.
 */
const texts: PlanTexts = {
  base: 'title\nmeet on monday\nroom 1\n',
  laptop: 'title\nmeet on friday\nroom 1\nbring cake\n',
  here: 'urgent\ntitle\nmeet on tuesday\nroom 1\n',
};

/** Opens the review inbox on plan.md's conflict by keyboard; returns which version's meeting day was kept and which set aside. */
async function openPlanConflict(page: Page): Promise<{ kept: string; aside: string }> {
  await memoriesTab(page).click();
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  const list = pane.getByRole('list', { name: 'Changes to review' });
  await expect(list.getByRole('button', { name: /gone\.md/ })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(list.getByRole('button', { name: /plan\.md/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(pane.getByRole('heading', { level: 3 })).toContainText('Changed on two computers at once');
  const kept = (await app.session.unlocked().memory.readFile(PLAN)).includes('tuesday') ? 'tuesday' : 'friday';
  return { kept, aside: kept === 'tuesday' ? 'friday' : 'tuesday' };
}

/** Tabs forward from where focus is until `target` has it (at most `max` presses): the way a keyboard user gets there. */
async function tabTo(page: Page, target: ReturnType<Page['locator']>, max = 30): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement || el.contains(document.activeElement))) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test.beforeEach(async () => {
  app = await readyApp({ format2: true });
  // The hostile test makes a conflict of its own texts.
  if (!test.info().title.startsWith('hostile')) await conflictWithLaptop(app, 'Laptop', texts);
});
test.afterEach(async () => app.cleanup());

test('an edit conflict is merged from the inbox by keyboard: changes taken from the set-aside version, the result edited and saved settles it', async () => {
  const { page } = app;
  const { kept, aside } = await openPlanConflict(page);
  const pane = page.getByRole('region', { name: 'To review' });
  const merge = pane.getByRole('button', { name: 'Merge…' });
  await tabTo(page, merge);
  await page.keyboard.press('Enter');

  // The merge view opens in the editor's place, its heading focused; the set-aside version on the left, the kept one as the result.
  const view = mergeRegion(page);
  await expect(view.getByRole('heading', { name: 'Merge the versions from both computers' })).toBeFocused();
  const left = view.getByRole('textbox', { name: /set aside \(read-only\)$/ });
  await expect(left).toContainText(`meet on ${aside}`);
  await expect(result(page)).toContainText(`meet on ${kept}`);
  // The differences are highlighted on both sides.
  await expect(view.locator('.cm-merge-b .cm-changedLine').first()).toBeVisible();
  await expect(view.getByRole('combobox', { name: 'Compare with' })).toHaveValue('0');
  await expectAccessible(page, 'the merge view of a conflict between computers');

  // The common base, one arrow key away in "Compare with"; then back to the version set aside.
  const compare = view.getByRole('combobox', { name: 'Compare with' });
  await tabTo(page, compare);
  await page.keyboard.press('ArrowDown');
  await expect(compare).toHaveValue('1');
  const baseSide = view.getByRole('textbox', { name: /what both started from \(read-only\)$/ });
  await expect(baseSide).toContainText('meet on monday');
  await expect(baseSide).not.toContainText('urgent');
  await page.keyboard.press('ArrowUp');
  await expect(left).toContainText(`meet on ${aside}`);

  // Its changes that do not overlap come in at once (node-diff3); the meeting line stays the result's.
  await tabTo(page, view.getByRole('button', { name: 'Add its changes that do not overlap' }));
  await page.keyboard.press('Enter');
  await expect(result(page)).toContainText('urgent');
  await expect(result(page)).toContainText('bring cake');
  await expect(result(page)).toContainText(`meet on ${kept}`);

  // Into the result by Tab, the cursor to the meeting line; Shift+Tab back to the buttons, and the left's line taken.
  await tabTo(page, result(page));
  await page.keyboard.press('ControlOrMeta+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const take = view.getByRole('button', { name: 'Take this change from the left' }).first();
  await take.focus();
  await page.keyboard.press('Enter');
  await expect(result(page)).toContainText(`meet on ${aside}`);
  await expect(result(page)).not.toContainText(`meet on ${kept}`);
  await expect(view.locator('.conflict-merge-status')).toHaveText('Taken from the left.');
  // Next change moves the result's cursor to a change and says which.
  await view.getByRole('button', { name: 'Next change' }).press('Enter');
  await expect(view.locator('.conflict-merge-status')).toHaveText(/^Change \d of \d$/);

  // Edited by hand, then saved with Ctrl+S from the result.
  await result(page).focus();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('bring notes');
  await page.keyboard.press('ControlOrMeta+S');

  const saved = `urgent\ntitle\nmeet on ${aside}\nroom 1\nbring cake\nbring notes`;
  await expect(page.getByRole('status')).toContainText(/Saved the merged result as version \d+; the conflict is settled/);
  await expect(mergeRegion(page)).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Editor' })).toBeFocused();
  expect(await app.session.unlocked().memory.readFile(PLAN)).toBe(saved);
  // Settled: gone from the window's count and list and from what `mnemo review` reads; the delete is still to review.
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 1 to review');
  expect(await listed()).toEqual(['/memories/gone.md delete']);
  await expect(page.getByRole('toolbar', { name: 'Memory actions' }).getByRole('button', { name: 'Merge…' })).toHaveCount(0);
});

test('cancel and Escape change nothing; with typed text they ask first, and Keep editing keeps it', async () => {
  const { page } = app;
  const { kept } = await openPlanConflict(page);
  const before = await app.session.unlocked().memory.readFile(PLAN);
  await page.getByRole('region', { name: 'To review' }).getByRole('button', { name: 'Merge…' }).press('Enter');
  const view = mergeRegion(page);
  await expect(view.getByRole('heading', { level: 3 })).toBeFocused();

  // Nothing typed: Escape leaves at once, to the editor (focused) with the kept text.
  await page.keyboard.press('Escape');
  await expect(view).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText(`meet on ${kept}`);
  await expect(page.getByRole('textbox', { name: 'Editor' })).toBeFocused();

  // From the editor's own Merge… button this time; a change taken by the button between the panes (keyboard too).
  const toolbarMerge = page.getByRole('toolbar', { name: 'Memory actions' }).getByRole('button', { name: 'Merge…' });
  await toolbarMerge.focus();
  await page.keyboard.press('Enter');
  await expect(view.getByRole('heading', { level: 3 })).toBeFocused();
  const between = view.locator('.cm-merge-revert button').first();
  await between.focus();
  await page.keyboard.press('Enter');
  await expect(result(page)).not.toHaveText(before.replace(/\n/g, ''));

  // Escape asks; Keep editing keeps the text; so does going to another memory; Cancel asks again and Discard leaves, nothing written.
  await page.keyboard.press('Escape');
  const ask = page.getByRole('alertdialog', { name: 'Unsaved changes' });
  await expect(ask).toBeVisible();
  await expectAccessible(page, 'discarding a merge');
  await page.keyboard.press('Escape');
  await expect(ask).toHaveCount(0);
  await expect(view).toBeVisible();
  const typed = await result(page).textContent();
  await page.getByRole('treeitem', { name: 'gone.md' }).press('Enter');
  await expect(ask).toBeVisible();
  await ask.getByRole('button', { name: 'Keep editing' }).press('Enter');
  await expect(result(page)).toHaveText(typed!);
  await view.getByRole('button', { name: 'Cancel' }).focus();
  await page.keyboard.press('Enter');
  await ask.getByRole('button', { name: /^Discard/ }).press('Enter');
  await expect(view).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile(PLAN)).toBe(before);
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 2 to review');
  expect(await listed()).toEqual(['/memories/gone.md delete', '/memories/plan.md edit']);
});

test('a delete that met an edit offers no merge, in the inbox or the editor', async () => {
  const { page } = app;
  await memoriesTab(page).click();
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  const list = pane.getByRole('list', { name: 'Changes to review' });
  // The edit conflict beside it has one.
  await list.getByRole('button', { name: /plan\.md/ }).press('Enter');
  await expect(pane.getByRole('button', { name: 'Merge…' })).toBeVisible();
  await list.getByRole('button', { name: /gone\.md/ }).press('Enter');
  await expect(pane.getByRole('heading', { level: 3 })).toContainText('Deleted on one computer while edited on another');
  await expect(pane.getByRole('button', { name: 'Show history' })).toBeVisible();
  await expect(pane.getByRole('button', { name: 'Merge…' })).toHaveCount(0);
  await pane.getByRole('button', { name: 'Open in editor' }).press('Enter');
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('keep me, edited');
  await expect(page.getByRole('toolbar', { name: 'Memory actions' }).getByRole('button', { name: 'Merge…' })).toHaveCount(0);
});

test('a save arriving while the merge is open is not overwritten silently: a warning, and only an explicit save replaces it', async () => {
  const { page } = app;
  await openPlanConflict(page);
  await page.getByRole('region', { name: 'To review' }).getByRole('button', { name: 'Merge…' }).press('Enter');
  const view = mergeRegion(page);
  await expect(view.getByRole('heading', { level: 3 })).toBeFocused();
  await result(page).focus();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('mine');

  // Another window (or the CLI) saves meanwhile.
  await app.session.unlocked().memory.writeFile(PLAN, 'written meanwhile\n', { mode: 'update', source: 'user' });
  const warning = view.getByRole('alert');
  await expect(warning).toContainText(/changed again meanwhile \(version (\d+)\)/);
  await expect(view.getByRole('button', { name: 'Save result' })).toBeDisabled();
  await expectAccessible(page, 'the merge view warning of a save meanwhile');
  // Ctrl+S does not write over it either.
  await result(page).press('ControlOrMeta+S');
  await expect(view).toBeVisible();
  expect(await app.session.unlocked().memory.readFile(PLAN)).toBe('written meanwhile\n');

  await warning.getByRole('button', { name: /^Save over version \d+$/ }).press('Enter');
  await expect(view).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile(PLAN)).toMatch(/mine$/);
});

test('a result typed but not saved is kept across a lock and offered back; saved from the editor, it settles the conflict', async () => {
  const { page } = app;
  await openPlanConflict(page);
  await page.getByRole('region', { name: 'To review' }).getByRole('button', { name: 'Merge…' }).press('Enter');
  await expect(mergeRegion(page).getByRole('heading', { level: 3 })).toBeFocused();
  await result(page).focus();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('merged 4471');
  const text = `${await app.session.unlocked().memory.readFile(PLAN)}merged 4471`;
  await lock(page);
  expect(await page.content()).not.toContain('4471');
  await unlock(page);
  const offer = page.getByRole('group', { name: 'Unsaved work' });
  await expect(offer).toContainText('Restore unsaved edit of /memories/plan.md?');
  await offer.getByRole('button', { name: 'Restore', exact: true }).press('Enter');
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('merged 4471');
  await page.getByRole('textbox', { name: 'Editor' }).press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile(PLAN)).toBe(text);
  expect(await listed()).toEqual(['/memories/gone.md delete']);
});

test('hostile memory text is shown as text in the merge view, and a 1 MB memory with a huge line stays usable', async () => {
  const { page } = app;
  // Laptop's version is HTML that would run if it were markup, and almost 1 MB, much of it one line; this one is HTML too.
  const big = `title\n<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\n${'x'.repeat(400_000)}\n${'line of text\n'.repeat(45_000)}`;
  await conflictWithLaptop(app, 'Laptop', { base: 'title\nmeet on monday\n', laptop: big, here: 'title\n<b onmouseover="window.pwned=3">bold</b>\nمرحبا بالعالم: right to left\n' });
  await openPlanConflict(page);
  const started = Date.now();
  await page.getByRole('region', { name: 'To review' }).getByRole('button', { name: 'Merge…' }).press('Enter');
  const view = mergeRegion(page);
  await expect(view.getByRole('heading', { level: 3 })).toBeFocused({ timeout: 15_000 });
  await expect(view).toContainText('<img src=x onerror="window.pwned=1">');
  await expect(view).toContainText('<b onmouseover="window.pwned=3">bold</b>');
  console.log(`merge view of a 1 MB memory open in ${Date.now() - started} ms`);
  expect(Date.now() - started).toBeLessThan(15_000);
  // (CodeMirror's own cursor-placement images aside.)
  await expect(view.locator('img:not(.cm-widgetBuffer), script, b')).toHaveCount(0);
  // A right-to-left line reads right to left, on its own.
  expect(await lineDirections(view.locator('.cm-line', { hasText: 'مرحبا بالعالم' }))).toEqual(['rtl']);
  expect(new Set(await lineDirections(view.locator('.cm-line', { hasText: /^title$/ })))).toEqual(new Set(['ltr']));
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  // Still answers the keyboard: typing lands, Escape asks.
  await result(page).focus();
  await page.keyboard.press('ControlOrMeta+Home');
  await page.keyboard.type('ok ');
  await expect(result(page)).toContainText('ok title');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('alertdialog', { name: 'Unsaved changes' })).toBeVisible();
});
