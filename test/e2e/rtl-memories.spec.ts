/**
 * Memory names, paths, the editor and History with Arabic and Hebrew mixed with Latin letters and
 * digits (issue 21, bidi isolation): each name resolves to its own direction, a path's segments
 * stay in order left to right (no segment, nor its digits, moves across a slash), each editor line
 * takes its own direction, and a conversation title in History reads right to left inside its
 * isolate without moving the words around it.
 */
import { expect, test, type Locator } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { eachWithMemoriesOpen, lineDirections, shot, type FreshApp } from './helpers';

let app: FreshApp;
eachWithMemoriesOpen((a) => (app = a));

const vault = () => app.session.unlocked();
const AR_DIR = 'مشروع 2024';
const AR_FILE = 'ملاحظات-3.md';
const HE_FILE = 'רשימה v2.md';

/** Whether the element resolves to right to left: its computed direction and `:dir(rtl)`. */
const resolved = (el: Locator) => el.evaluate((e) => ({ direction: getComputedStyle(e).direction, rtl: e.matches(':dir(rtl)') }));
/**
 * The text of a path's segments (its `<bdi>`s) in DOM order, and where each starts on screen: its first line box (a
 * segment with a space may wrap in a narrow column; its bounding box would then span both lines and start left of
 * where it begins).
 */
const segments = (path: Locator) =>
  path.evaluate((e) =>
    [...e.querySelectorAll('bdi')].map((b) => {
      const first = b.getClientRects()[0] ?? b.getBoundingClientRect();
      return { text: b.textContent, left: first.left, top: first.top, rtl: b.matches(':dir(rtl)') };
    }),
  );
/** Each segment after the one before it in reading order: further right on the same line, or on a later line (a long path wraps). */
const inOrder = (parts: { left: number; top: number }[]) => parts.slice(1).every((p, i) => p.top > parts[i]!.top + 1 || (Math.abs(p.top - parts[i]!.top) <= 1 && p.left > parts[i]!.left));

test('tree names, the editor heading path and its lines, in Arabic and Hebrew mixed with Latin and digits', async () => {
  const { page } = app;
  await vault().memory.writeFile(`/memories/${AR_DIR}/${AR_FILE}`, 'مرحبا Claude 42\nplain English line\nשלום עולם 7', { mode: 'create', source: 'user' });
  await vault().memory.writeFile(`/memories/notes/${HE_FILE}`, 'x', { mode: 'create', source: 'user' });

  const folder = page.getByRole('treeitem', { name: new RegExp(`^${AR_DIR}`) });
  await expect(folder).toBeVisible();
  expect(await resolved(folder.locator('.name'))).toEqual({ direction: 'rtl', rtl: true });
  await folder.click();
  const file = page.getByRole('treeitem', { name: new RegExp(`^${AR_FILE.replace('.', '\\.')}`) });
  await expect(file).toBeVisible();
  expect(await resolved(file.locator('.name'))).toEqual({ direction: 'rtl', rtl: true });
  await page.getByRole('treeitem', { name: /^notes/ }).click();
  const hebrew = page.getByRole('treeitem', { name: /^רשימה/ });
  expect(await resolved(hebrew.locator('.name'))).toEqual({ direction: 'rtl', rtl: true });
  // The row's tooltip isolates each right-to-left segment, so the path keeps its order there too.
  expect(await hebrew.getAttribute('title')).toContain(`/memories/notes/\u2068${HE_FILE}\u2069`);

  await file.click();
  const heading = page.locator('.editor-pane .file-title .memory-path');
  await expect(heading).toHaveText(`/memories/${AR_DIR}/${AR_FILE}`);
  expect(await resolved(heading)).toEqual({ direction: 'ltr', rtl: false });
  const parts = await segments(heading);
  expect(parts.map((p) => p.text)).toEqual(['memories', AR_DIR, AR_FILE]);
  expect(parts.map((p) => p.rtl)).toEqual([false, true, true]);
  // Left to right on screen in path order: "2024" and "-3.md" stay inside their own segment.
  expect(inOrder(parts)).toBe(true);

  const lines = page.locator('.editor .cm-line');
  await expect(lines).toHaveCount(3);
  expect(await lineDirections(lines)).toEqual(['rtl', 'ltr', 'rtl']);
  await shot(page, 'rtl-memories-1-editor');
});

test('History names a right-to-left conversation title isolated, and search hits keep path order', async () => {
  const { page } = app;
  const conversations = new Conversations(vault());
  const conv = await conversations.create();
  await conversations.rename(conv.id, 'תכנון טיול 2025');
  const path = `/memories/${AR_DIR}/${AR_FILE}`;
  await vault().memory.writeFile(path, 'first', { mode: 'create', source: 'user' });
  await vault().memory.writeFile(path, 'second رحلة', { mode: 'update', source: 'claude', by: { kind: 'claude', conversationId: conv.id, turn: 3 } });
  await page.getByRole('treeitem', { name: new RegExp(`^${AR_DIR}`) }).click();
  await page.getByRole('treeitem', { name: new RegExp(`^${AR_FILE.replace('.', '\\.')}`) }).click();
  await page.getByRole('button', { name: 'History', exact: true }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  const current = history.getByRole('button', { name: /^Version 2 \(current\)/ });
  await expect(current).toContainText('Claude in “תכנון טיול 2025”, turn 3');
  const title = current.locator('bdi');
  await expect(title).toHaveText('תכנון טיול 2025');
  expect(await resolved(title)).toEqual({ direction: 'rtl', rtl: true });
  // The isolate keeps ", turn 3" after the title: the title's digits do not join the turn's.
  const after = await title.evaluate((b) => {
    const r = document.createRange();
    r.selectNodeContents(b.nextSibling!);
    const text = r.getClientRects()[0]!;
    const box = b.getBoundingClientRect();
    return { text: r.toString(), follows: text.top > box.top + 1 || text.left >= box.right - 1 };
  });
  expect(after).toEqual({ text: '”, turn 3', follows: true });
  await shot(page, 'rtl-memories-2-history');
  await page.getByRole('button', { name: 'History', exact: true }).click();

  await page.getByRole('searchbox', { name: 'Search memories' }).fill('رحلة');
  const hits = page.getByRole('list', { name: 'Search results' });
  const hitPath = hits.locator('.memory-path').first();
  await expect(hitPath).toBeVisible();
  const parts = await segments(hitPath);
  expect(parts.map((p) => p.text)).toEqual(['memories', AR_DIR, AR_FILE]);
  expect(inOrder(parts)).toBe(true);
  await shot(page, 'rtl-memories-3-search');
  expect(await resolved(page.getByRole('searchbox', { name: 'Search memories' }))).toEqual({ direction: 'rtl', rtl: true });
});
