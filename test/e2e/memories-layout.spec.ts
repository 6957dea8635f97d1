import { expect, test, type Locator } from '@playwright/test';
import type { freshApp} from './helpers';
import { openMemories, shot, readyApp } from './helpers';

type Fresh = Awaited<ReturnType<typeof freshApp>>;
let app: Fresh;
const PATH = '/memories/projects/2026/quarterly-planning-notes.md';
test.beforeEach(async () => {
  app = await readyApp();
  await app.session.unlocked().memory.writeFile(PATH, '# Q2\nShip the thing.', { mode: 'create', source: 'user' });
  await openMemories(app.page);
});
test.afterEach(async () => app.cleanup());

const width = async (l: Locator) => (await l.boundingBox())!.width;
/** Opens the memory as a person would: its folders start closed (issue 20), so each is opened on the way. */
async function openNote() {
  for (const name of ['projects', '2026', 'quarterly-planning-notes.md']) await app.page.getByRole('treeitem', { name, exact: true }).click();
}
/** The path heading shows the whole path: not clipped, and named in full for assistive tech. */
async function expectWholePath() {
  const title = app.page.getByRole('heading', { name: PATH });
  await expect(title).toBeVisible();
  await expect(title).toHaveAttribute('title', PATH);
  expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
}

test('at 900×650 with history open the editor keeps at least half the window and the whole path shows', async () => {
  const { page } = app;
  await page.setViewportSize({ width: 900, height: 650 });
  await openNote();
  await page.getByRole('button', { name: 'History' }).click();
  await expect(page.getByRole('complementary', { name: 'Version history' })).toBeVisible();
  expect(await width(page.getByRole('textbox', { name: 'Editor' }))).toBeGreaterThanOrEqual(450);
  await expectWholePath();
  await shot(page, '19-memories-900x650');
});

test('at 200 % zoom (a 640×400 CSS-pixel window) the whole path shows and the editor keeps half the width', async () => {
  const { page } = app;
  await page.setViewportSize({ width: 640, height: 400 });
  await openNote();
  await page.getByRole('button', { name: 'History' }).click();
  await expectWholePath();
  expect(await width(page.getByRole('textbox', { name: 'Editor' }))).toBeGreaterThanOrEqual(320);
  await shot(page, '20-memories-zoom-200');
});

test('the memory list collapses and its separator resizes it by keyboard, reporting its size', async () => {
  const { page } = app;
  await openNote();
  const editor = page.getByRole('textbox', { name: 'Editor' });
  const sep = page.getByRole('separator', { name: 'Resize memory list' });
  const before = Number(await sep.getAttribute('aria-valuenow'));
  expect(before).toBeGreaterThan(0);
  const wide = await width(editor);
  await sep.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(sep).toHaveAttribute('aria-valuenow', String(before + 32));
  expect(await width(editor)).toBeLessThan(wide);

  // Dragging works too: the separator follows the pointer.
  const box = (await sep.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(sep).toHaveAttribute('aria-valuenow', String(before + 32 + 40));

  const hide = page.getByRole('button', { name: 'Hide memory list' });
  await expect(hide).toHaveAttribute('aria-expanded', 'true');
  // An icon, as the conversation list's toggle, not a text glyph: the chevron points to the start while the list
  // shows (sin of its turn, b of the matrix, 1) and to the end once it is hidden (-1).
  expect(await hide.textContent()).toBe('Hide memory list');
  const turn = (name: string) => page.getByRole('button', { name }).locator('svg').evaluate((e) => Math.round(new DOMMatrix(getComputedStyle(e).transform).b));
  await expect.poll(() => turn('Hide memory list')).toBe(1);
  await hide.click();
  await expect.poll(() => turn('Show memory list')).toBe(-1);
  await expect(page.getByRole('tree', { name: 'Memories' })).toBeHidden();
  expect(await width(editor)).toBeGreaterThan(wide);
  // The toggle moves out of the hidden list (and back into its first row), and keeps the focus, so Enter toggles again.
  await expect(page.getByRole('button', { name: 'Show memory list' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tree', { name: 'Memories' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Hide memory list' })).toBeFocused();
});

test('the history pane resizes by keyboard through its separator', async () => {
  const { page } = app;
  await openNote();
  await page.getByRole('button', { name: 'History' }).click();
  const sep = page.getByRole('separator', { name: 'Resize history' });
  const before = Number(await sep.getAttribute('aria-valuenow'));
  const pane = page.getByRole('complementary', { name: 'Version history' });
  const w = await width(pane);
  await sep.focus();
  await page.keyboard.press('ArrowRight');
  await expect(sep).toHaveAttribute('aria-valuenow', String(before - 16));
  expect(await width(pane)).toBeLessThan(w);
});

test('the list has one bordered action (New memory); New folder, Trash and To review are quiet, and To review shows no count at 0', async () => {
  const { page } = app;
  const list = page.locator('#memory-list');
  const look = (name: string) =>
    list.getByRole('button', { name, exact: true }).evaluate((el) => {
      const c = getComputedStyle(el);
      return { quiet: c.backgroundColor === 'rgba(0, 0, 0, 0)' && c.borderTopColor === 'rgba(0, 0, 0, 0)', text: el.textContent };
    });
  expect((await look('New memory')).quiet).toBe(false);
  for (const name of ['New folder', 'Trash']) expect((await look(name)).quiet, `${name} is a quiet text button`).toBe(true);
  // Nothing to review: the words alone, not "To review (0)" and no badge.
  expect(await look('To review')).toEqual({ quiet: true, text: 'To review' });
  await expect(list.getByText('(0)')).toHaveCount(0);
  await expect(list.locator('.tab-count')).toHaveCount(0);
  // Opened, it is marked as pressed and tinted, still without a border.
  await list.getByRole('button', { name: 'To review', exact: true }).click();
  await expect(list.getByRole('button', { name: 'To review', exact: true })).toHaveAttribute('aria-pressed', 'true');
  expect(await list.getByRole('button', { name: 'To review', exact: true }).evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe('rgba(0, 0, 0, 0)');
});
