/**
 * Conflicts between computers in the review inbox (a vault several computers write): a memory changed here and on
 * "Laptop" at once, and one deleted here while Laptop edited it, are listed with what happened, the versions and the
 * computers, and can be opened in the editor or its history and marked reviewed, by keyboard. Laptop is a real vault on
 * a copy of the app's folder, its files carried back as a sync engine would.
 */
import os from 'node:os';
import { expect, test, type Page } from '@playwright/test';
import { ReviewInbox } from '../../electron/core/review/inbox';
import { expectAccessible, readyApp, type FreshApp } from './helpers';
import { conflictWithLaptop } from './two-computers';

let app: FreshApp;
const host = (os.hostname().trim() || 'computer').slice(0, 64);
const memoriesTab = (page: Page) => page.getByRole('tab', { name: /^Memories/ });

test.beforeEach(async () => {
  app = await readyApp({ format2: true });
});
test.afterEach(async () => app.cleanup());

test('conflicts between computers are listed with their versions and computers, opened in history and marked reviewed by keyboard', async () => {
  const { page } = app;
  await conflictWithLaptop(app, 'Laptop');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 2 to review');
  await memoriesTab(page).click();
  await expect(page.getByRole('treeitem', { name: 'plan.md' })).toHaveAccessibleDescription(/^Changed on two computers at once, not reviewed\./);
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  const list = pane.getByRole('list', { name: 'Changes to review' });
  await expect(list.getByRole('button', { name: /gone\.md/ })).toBeFocused();
  await expect(list.getByRole('button', { name: /gone\.md/ })).toContainText('deleted on one computer while edited on another, not reviewed');
  await expect(list.getByRole('button', { name: /plan\.md/ })).toContainText('changed on two computers at once, not reviewed');

  // The delete: the edit was kept (version 2), the delete had removed version 1.
  await expect(pane.getByRole('heading', { level: 3 })).toContainText('Deleted on one computer while edited on another · version 2 kept');
  await expect(pane).toContainText('The edit (version 2) was kept on every computer; the delete had removed version 1.');
  await expect(pane.getByRole('group', { name: 'Version 1, which the delete removed, compared with version 2, kept' })).toBeVisible();

  // The edit: one version kept, the other set aside in history; both computers named.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  const heading = pane.getByRole('heading', { level: 3 });
  await expect(heading).toContainText(/Changed on two computers at once · version \d kept/);
  const kept = Number(/version (\d) kept/.exec((await heading.textContent()) ?? '')![1]);
  const setAside = kept === 3 ? 2 : 3;
  await expect(pane).toContainText(`Version ${kept} is kept on every computer; version ${setAside} was set aside and stays in the memory's history.`);
  await expect(pane.locator('bdi', { hasText: 'Laptop' })).toHaveCount(1);
  await expect(pane.locator('bdi', { hasText: host })).toHaveCount(1);
  const diff = pane.getByRole('group', { name: `Version ${setAside}, set aside, compared with version ${kept}, kept` });
  await expect(diff.locator('.added .text')).toHaveText([kept === 3 ? 'meet on tuesday' : 'meet on friday']);
  await expectAccessible(page, 'a conflict in the review inbox');

  // Its history, by keyboard: the editor opens with the version history beside it, the set-aside version listed.
  const showHistory = pane.getByRole('button', { name: 'Show history' });
  await showHistory.focus();
  await page.keyboard.press('Enter');
  const history = page.getByRole('complementary', { name: 'Version history' });
  await expect(history.getByRole('button', { name: new RegExp(`^Version ${setAside}\\b`) })).toBeVisible();

  // Back to the inbox: marked reviewed by keyboard, the count drops, focus moves on to the other conflict.
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  await pane.getByRole('list', { name: 'Changes to review' }).getByRole('button', { name: /plan\.md/ }).press('Enter');
  await expect(pane.getByRole('group', { name: `Version ${setAside}, set aside, compared with version ${kept}, kept` })).toBeVisible();
  await pane.getByRole('button', { name: 'Mark reviewed' }).focus();
  await page.keyboard.press('Enter');
  await expect(memoriesTab(page)).toHaveAccessibleName('Memories 1 to review');
  await expect(list.getByRole('button', { name: /gone\.md/ })).toBeFocused();
  await expect(list.getByRole('button', { name: /plan\.md/ })).toHaveCount(0);
  // The mark is this computer's record, as a mark made in the CLI would be.
  expect((await new ReviewInbox(app.session.unlocked()).list()).map((e) => e.path)).toEqual(['/memories/gone.md']);
});

test('a hostile computer name is shown as text, isolated, and runs nothing', async () => {
  const { page } = app;
  const hostile = '<img src=x onerror="window.pwned=1">\u202eevil';
  await conflictWithLaptop(app, hostile);
  await memoriesTab(page).click();
  await page.getByRole('button', { name: 'To review 2', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  await pane.getByRole('list', { name: 'Changes to review' }).getByRole('button', { name: /plan\.md/ }).click();
  // Tidied where it is read (a direction override becomes a space), and never made into an element.
  await expect(pane.locator('bdi', { hasText: '<img src=x onerror="window.pwned=1"> evil' })).toHaveCount(1);
  await expect(pane.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
});
