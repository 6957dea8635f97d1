/**
 * The memory tree with thousands of memories (issue 20): a few hundred items
 * in the page at most, the keyboard reaching rows not drawn yet, type-ahead,
 * and a memory opened from the search scrolled to, selected and its folders
 * opened. 2,000 memories under `npm test`, 10,000 under MNEMO_DEEP=1.
 */
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { DEEP } from '../deep';
import { TEST_KDF } from './harness';
import { freshApp, PASSPHRASE, unlock, type FreshApp } from './helpers';

// Top-level journal files after the folders, so the top level alone is far longer than the view.
const SHAPE = DEEP ? { areas: 15, topics: 20, notes: 25, journal: 2_500 } : { areas: 10, topics: 10, notes: 15, journal: 500 };
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const last = { area: pad(SHAPE.areas - 1), topic: pad(SHAPE.topics - 1), note: pad(SHAPE.notes - 1) };
const TARGET = `/memories/area-${last.area}/topic-${last.topic}/note-${last.note}.md`;
const MARKER = 'kiwi-marker-5521';

function seedFiles(): Array<{ path: string; text: string }> {
  const files: Array<{ path: string; text: string }> = [];
  for (let a = 0; a < SHAPE.areas; a++)
    for (let t = 0; t < SHAPE.topics; t++)
      for (let n = 0; n < SHAPE.notes; n++) {
        const path = `/memories/area-${pad(a)}/topic-${pad(t)}/note-${pad(n)}.md`;
        files.push({ path, text: path === TARGET ? `The one with ${MARKER}.` : `Note ${n} of topic ${t} in area ${a}.` });
      }
  for (let j = 0; j < SHAPE.journal; j++) files.push({ path: `/memories/journal-${pad(j, 4)}.md`, text: `Journal entry ${j}.` });
  return files;
}

/**
 * A vault made and filled through core before the window unlocks it, as `mnemo init` and `mnemo import`
 * would: filled with the app unlocked, each file's change event would cross to the page on its own
 * (seconds for thousands), and the first-run screens are not what this spec is about.
 */
async function seededVault(app: FreshApp, files: Array<{ path: string; text: string }>): Promise<void> {
  const { vault } = await Vault.create(path.join(app.userDataDir, 'vault'), PASSPHRASE, { stateDir: path.join(app.userDataDir, 'state'), kdf: TEST_KDF });
  try {
    await vault.importFiles(files, { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e9 });
  } finally {
    await vault.close();
  }
  await app.page.reload();
  await unlock(app.page);
}

const tree = (page: Page) => page.locator('#panel-memories').getByRole('tree', { name: 'Memories' });
const item = (page: Page, name: string) => tree(page).getByRole('treeitem', { name, exact: true });
const itemsInPage = (page: Page) => page.locator('[role=treeitem]').count();

test(`the tree holds ${SHAPE.areas * SHAPE.topics * SHAPE.notes + SHAPE.journal} memories with a few hundred items in the page, by keyboard and from the search`, async () => {
  const app = await freshApp();
  try {
    const { page } = app;
    await seededVault(app, seedFiles());
    // axe on the Memories tab with its tree runs in every spec that opens it (helpers.openMemories); here only the tab.
    await page.getByRole('tab', { name: 'Memories' }).click();

    await test.step('folders start closed and only rows near the view are in the page', async () => {
      await expect(item(page, 'area-00')).toHaveAttribute('aria-expanded', 'false');
      await expect(item(page, 'note-00.md')).toHaveCount(0);
      expect(await itemsInPage(page)).toBeLessThanOrEqual(500);
      const first = item(page, 'area-00');
      await expect(first).toHaveAttribute('aria-level', '1');
      await expect(first).toHaveAttribute('aria-posinset', '1');
      await expect(first).toHaveAttribute('aria-setsize', String(SHAPE.areas + SHAPE.journal));
    });

    await test.step('End reaches the last item, Home the first, one Tab stop throughout', async () => {
      await page.getByRole('searchbox', { name: 'Search memories' }).focus();
      await page.keyboard.press('Tab');
      await expect(item(page, 'area-00')).toBeFocused();
      await page.keyboard.press('End');
      const lastJournal = item(page, `journal-${pad(SHAPE.journal - 1, 4)}.md`);
      await expect(lastJournal).toBeFocused();
      await expect(lastJournal).toBeInViewport();
      await expect(lastJournal).toHaveAttribute('aria-posinset', String(SHAPE.areas + SHAPE.journal));
      await expect(item(page, 'area-00')).toHaveCount(0);
      await expect(tree(page).locator('[role=treeitem][tabindex="0"]')).toHaveCount(1);
      await page.keyboard.press('Home');
      await expect(item(page, 'area-00')).toBeFocused();
      await expect(item(page, 'area-00')).toBeInViewport();
    });

    await test.step('typing a name goes to it', async () => {
      await page.keyboard.type('journal-02');
      const hit = item(page, 'journal-0200.md');
      await expect(hit).toBeFocused();
      await expect(hit).toBeInViewport();
      expect(await itemsInPage(page)).toBeLessThanOrEqual(500);
      await page.keyboard.press('Home');
      await expect(item(page, 'area-00')).toBeFocused();
    });

    await test.step('Right opens a folder and enters it, Left goes back up and closes it', async () => {
      await page.keyboard.press('ArrowRight');
      await expect(item(page, 'area-00')).toHaveAttribute('aria-expanded', 'true');
      await page.keyboard.press('ArrowRight');
      await expect(item(page, 'topic-00').first()).toBeFocused();
      await expect(item(page, 'topic-00').first()).toHaveAttribute('aria-level', '2');
      await page.keyboard.press('ArrowLeft');
      await expect(item(page, 'area-00')).toBeFocused();
      await page.keyboard.press('ArrowLeft');
      await expect(item(page, 'area-00')).toHaveAttribute('aria-expanded', 'false');
      await expect(item(page, 'topic-00')).toHaveCount(0);
      // Scrolled far from the selection: the search below must bring the view back to it.
      await page.keyboard.press('End');
    });

    await test.step('a memory opened from the search is shown in the tree: folders opened, scrolled to, selected, focused', async () => {
      const search = page.getByRole('searchbox', { name: 'Search memories' });
      await search.fill(MARKER);
      await search.press('Enter');
      const hits = page.getByRole('list', { name: 'Search results' });
      await hits.getByRole('button', { name: new RegExp(`note-${last.note}\\.md`) }).click();
      await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText(MARKER);
      const target = item(page, `note-${last.note}.md`);
      await expect(target).toHaveAttribute('aria-selected', 'true');
      await expect(target).toHaveAttribute('aria-level', '3');
      await expect(target).toBeInViewport();
      await expect(target).toBeFocused();
      await expect(target).toHaveAttribute('title', new RegExp(`^${TARGET}\n`));
      expect(await itemsInPage(page)).toBeLessThanOrEqual(500);
      // Its folders were opened, and only those: walked by keyboard, since they are scrolled out of the page.
      await page.keyboard.press('ArrowLeft');
      const topic = item(page, `topic-${last.topic}`);
      await expect(topic).toBeFocused();
      await expect(topic).toHaveAttribute('aria-expanded', 'true');
      await page.keyboard.type(`area-${last.area}`);
      await expect(item(page, `area-${last.area}`)).toBeFocused();
      await expect(item(page, `area-${last.area}`)).toHaveAttribute('aria-expanded', 'true');
      await page.keyboard.press('Home');
      await expect(item(page, 'area-00')).toBeFocused();
      await expect(item(page, 'area-00')).toHaveAttribute('aria-expanded', 'false');
      // The hits are one button away, and focus goes back into them.
      await page.getByRole('button', { name: 'Back to the search results (1)' }).click();
      await expect(hits.getByRole('button', { name: new RegExp(`note-${last.note}\\.md`) })).toBeFocused();
    });
  } finally {
    await app.cleanup();
  }
});
