/**
 * Issue 20, "Lists that hold after a year": the conversation list as people
 * know it — one line each, grouped by day and month, pinned on top, archived
 * out of the way, a ⋯ menu that works by keyboard, and search as you type that
 * ignores case and accents. One app and one unlock for the whole spec.
 */
import { expect, test, type Page } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import type { TranscriptEntry } from '../../electron/shared/chat';
import { expectAccessible, lock, unlock, type FreshApp, readyApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
const HOUR = 3_600_000;
/** Local midnight `days` days ago (as the list counts days), plus `hours`. */
const dayStart = (days: number, hours = 12) => {
  const d = new Date();
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - days).getTime() + hours * HOUR;
};
const OLD = dayStart(400);
const OLD_LABEL = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric' }).format(new Date(OLD));
const LONG_TITLE = 'A very long conversation title that goes on and on about planning the garden beds for next spring';

async function seed(title: string, updated: number, texts: string[] = []): Promise<string> {
  const store = new Conversations(app.session.unlocked());
  const c = await store.create();
  const transcript: TranscriptEntry[] = texts.map((text, i) => (i % 2 ? { role: 'assistant', text, at: updated, tools: [] } : { role: 'user', text, at: updated }));
  await store.update(c.id, (x) => ({ ...x, title, updated, transcript }));
  return c.id;
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const group = (page: Page, name: string) => nav(page).getByRole('list', { name, exact: true });
const row = (page: Page, title: string) => nav(page).getByRole('button', { name: title, exact: true });
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search conversations' });

test.beforeAll(async () => {
  app = await readyApp();
  await seed('Seed today', Math.min(Date.now(), dayStart(0, 0) + 60_000), ['Vamos comprar AÇÕES amanhã?', '| Item | **Ações** |\n| --- | --- |\n| [Banco](https://bank.test) | 10 |']);
  await seed('Seed yesterday', dayStart(1), ['長期記憶の保存について']);
  await seed('Seed three days ago', dayStart(3));
  await seed('Seed twenty days ago', dayStart(20));
  await seed('Seed long ago', OLD);
  await seed(LONG_TITLE, dayStart(0, 0) + 30_000);
  // The list is read again on unlock, as after a restart.
  await lock(app.page);
  await unlock(app.page);
});
test.afterAll(async () => app.cleanup());

test('conversations are one line each, under Today, Yesterday, Previous 7 days, Previous 30 days and a month heading', async () => {
  const { page } = app;
  // Waited for: after an unlock the list arrives a moment after the Lock button (a bare read once found none).
  await expect(nav(page).getByRole('heading', { level: 4 })).toHaveText(['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', OLD_LABEL]);
  await expect(group(page, 'Today').getByRole('button', { name: 'Seed today', exact: true })).toBeVisible();
  await expect(group(page, 'Yesterday').getByRole('button', { name: 'Seed yesterday', exact: true })).toBeVisible();
  await expect(group(page, 'Previous 7 days').getByRole('button', { name: 'Seed three days ago', exact: true })).toBeVisible();
  await expect(group(page, 'Previous 30 days').getByRole('button', { name: 'Seed twenty days ago', exact: true })).toBeVisible();
  await expect(group(page, OLD_LABEL).getByRole('button', { name: 'Seed long ago', exact: true })).toBeVisible();
  // A long title stays on one line, cut with an ellipsis; the whole title is its name and its tooltip.
  const long = row(page, LONG_TITLE);
  const box = await long.evaluate((el: HTMLElement) => ({ height: el.getBoundingClientRect().height, cut: el.scrollWidth > el.clientWidth, title: el.title }));
  expect(box.height).toBe((await row(page, 'Seed today').boundingBox())!.height);
  expect(box.cut).toBe(true);
  expect(box.title).toBe(LONG_TITLE);
  await expectAccessible(page, 'the grouped conversation list');
});

test('the ⋯ menu works by keyboard: arrows move, Escape returns to the button, and Pin to top moves the row to Pinned, kept after lock', async () => {
  const { page } = app;
  await row(page, 'Seed three days ago').focus();
  await page.keyboard.press('Tab');
  const more = nav(page).getByRole('button', { name: 'More actions for Seed three days ago' });
  await expect(more).toBeFocused();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'More actions for Seed three days ago' });
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Pin to top' })).toBeFocused();
  await page.keyboard.press('End');
  await expect(menu.getByRole('menuitem', { name: 'Delete' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(more).toBeFocused();
  await expect(more).toHaveAttribute('aria-expanded', 'false');

  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(group(page, 'Pinned').getByRole('button', { name: 'Seed three days ago', exact: true })).toBeFocused();
  await expect(group(page, 'Previous 7 days')).toHaveCount(0);
  await expect(nav(page).getByRole('heading', { level: 4 }).first()).toHaveText('Pinned');

  await lock(page);
  await unlock(page);
  await expect(group(page, 'Pinned').getByRole('button', { name: 'Seed three days ago', exact: true })).toBeVisible();
  const stored = (await new Conversations(app.session.unlocked()).list()).find((c) => c.title === 'Seed three days ago');
  expect(stored).toMatchObject({ pinned: true, updated: dayStart(3) });
});

test('archive takes a conversation out of the list; the Archived view opens it and unarchives it', async () => {
  const { page } = app;
  await nav(page).getByRole('button', { name: 'More actions for Seed yesterday' }).click();
  await page.getByRole('menuitem', { name: 'Archive' }).click();
  await expect(row(page, 'Seed yesterday')).toHaveCount(0);
  const toggle = nav(page).getByRole('button', { name: 'Archived (1)' });
  await expect(toggle).toBeFocused();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const archived = nav(page).getByRole('list', { name: 'Archived conversations' });
  await archived.getByRole('button', { name: 'Seed yesterday', exact: true }).click();
  await expect(archived.getByRole('button', { name: 'Seed yesterday', exact: true })).toHaveAttribute('aria-current', 'true');
  await expect(page.getByRole('region', { name: 'Conversation' })).toContainText('長期記憶の保存について');

  await archived.getByRole('button', { name: 'More actions for Seed yesterday' }).click();
  await page.getByRole('menuitem', { name: 'Unarchive' }).click();
  await expect(group(page, 'Yesterday').getByRole('button', { name: 'Seed yesterday', exact: true })).toBeFocused();
  // Nothing archived any more: no "Archived (0)" toggle to an empty list.
  await expect(nav(page).getByRole('button', { name: /^Archived/ })).toHaveCount(0);
});

test('F2 renames inline and Escape cancels, keeping the title and putting focus back on the row', async () => {
  const { page } = app;
  await row(page, 'Seed twenty days ago').focus();
  await page.keyboard.press('F2');
  const field = nav(page).getByRole('textbox', { name: 'Conversation title' });
  await expect(field).toBeFocused();
  await field.fill('Something else');
  await page.keyboard.press('Escape');
  await expect(field).toHaveCount(0);
  await expect(row(page, 'Seed twenty days ago')).toBeFocused();
  await page.keyboard.press('F2');
  await field.fill('Twenty days, renamed');
  await page.keyboard.press('Enter');
  await expect(row(page, 'Twenty days, renamed')).toBeFocused();
  await expect(group(page, 'Previous 30 days').getByRole('button', { name: 'Twenty days, renamed', exact: true })).toBeVisible();
});

test('search as you type ignores accents and case, marks the match in a clean snippet, and an empty box shows the list again', async () => {
  const { page } = app;
  await search(page).pressSequentially('acoes');
  const results = nav(page).getByRole('list', { name: 'Search results' });
  const hit = results.getByRole('button', { name: /^Seed today/ });
  await expect(hit).toBeVisible();
  await expect(hit.locator('mark').first()).toHaveText('AÇÕES');
  await expect(results).not.toContainText('No conversation contains');
  // CJK inside a run of characters, no Enter pressed.
  await search(page).fill('記憶');
  await expect(results.getByRole('button', { name: /^Seed yesterday/ }).locator('mark')).toHaveText('記憶');
  // A table's text, without its Markdown.
  await search(page).fill('banco');
  const table = results.getByRole('button', { name: /^Seed today/ });
  await expect(table.locator('mark')).toHaveText('Banco');
  await expect(table).not.toContainText('|');
  await expect(table).not.toContainText('](');
  // Nothing found is said of the query in the box, and only once its answer is in.
  await search(page).fill('zzzz-nothing');
  await expect(results).toContainText('No conversation contains “zzzz-nothing”.');
  await expectAccessible(page, 'conversation search results');

  await search(page).fill('');
  await expect(results).toHaveCount(0);
  await expect(group(page, 'Today').getByRole('button', { name: 'Seed today', exact: true })).toBeVisible();
});

test('the header stays put while the list scrolls, and the list collapses and stays collapsed for the session', async () => {
  const { page } = app;
  for (let i = 0; i < 40; i++) await seed(`Filler ${i}`, dayStart(40 + i));
  await lock(page);
  await unlock(page);
  await expect(row(page, 'Filler 39')).toBeAttached();
  await nav(page).evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(row(page, 'Filler 39')).toBeInViewport();
  await expect(nav(page).getByRole('button', { name: 'New conversation', exact: true })).toBeInViewport();
  await expect(search(page)).toBeInViewport();

  // An icon button whose name says what it will do, with aria-expanded saying the list's state; no glyph in its text.
  const toggle = nav(page).locator('button[aria-controls="conversation-list"]');
  await expect(toggle).toHaveAccessibleName('Hide conversations');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(toggle).toHaveText('');
  await expect(toggle.locator('svg')).toBeVisible();
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toHaveAccessibleName('Show conversations');
  await expect(toggle).toBeFocused();
  await expect(row(page, 'Seed today')).toBeHidden();
  await expect(nav(page).getByRole('button', { name: 'New conversation', exact: true })).toBeVisible();
  // Remembered for the session: still collapsed after a lock and unlock.
  await lock(page);
  await unlock(page);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(row(page, 'Seed today')).toBeHidden();
  await toggle.click();
  await expect(row(page, 'Seed today')).toBeVisible();
});
