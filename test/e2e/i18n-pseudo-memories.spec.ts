/**
 * Every screen and state of the Memories tab speaks only catalog strings (issue 21): in the
 * pseudo-locale en-XA each catalog string is bracketed, so any text, label, placeholder or title
 * outside brackets bypassed the catalogs. Names and paths of memories are the user's (or Claude's)
 * and are isolated (`<bdi>`, `dir="auto"`), which the walk leaves out.
 */
import { expect, test, type Page } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import common from '../../electron/shared/locales/en/common.json' with { type: 'json' };
import memories from '../../electron/shared/locales/en/memories.json' with { type: 'json' };
import { pseudoLocalize } from '../../renderer/lib/i18n/pseudo';
import { expectAccessible, readyApp, type FreshApp } from './helpers';
import { untranslated } from './untranslated';

test.describe.configure({ mode: 'serial' });

/** The en-XA text of an en catalog string, as the window shows it; `{{x}}` filled from `values`. */
function px(ns: 'common' | 'memories', key: string, values: Record<string, string | number> = {}): string {
  const catalog = { common, memories }[ns] as Record<string, unknown>;
  const text = key.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown>)[k], catalog);
  if (typeof text !== 'string') throw new Error(`no string ${ns}:${key}`);
  return pseudoLocalize(text).replace(/\{\{\s*(\w+)[^}]*\}\}/g, (_, k: string) => String(values[k]));
}
const m = (key: string, values?: Record<string, string | number>) => px('memories', key, values);

async function expectAllTranslated(page: Page, screen: string): Promise<void> {
  expect(await untranslated(page, { within: '.memories' }), `text outside the catalogs on ${screen}`).toEqual([]);
}

let app: FreshApp;
test.beforeAll(async () => {
  app = await readyApp({ locale: 'en-XA' });
  await app.page.getByRole('tab', { name: px('common', 'tabs.memories') }).click();
  await expect(app.page.getByRole('button', { name: m('actions.newMemory') })).toBeVisible();
});
test.afterAll(async () => app?.cleanup());

const vault = () => app.session.unlocked();
const editor = (page: Page) => page.getByRole('textbox', { name: m('editor.label') });

test('the empty tree, the create forms, the editor, its find panel and the delete question', async () => {
  const { page } = app;
  await expectAllTranslated(page, 'the empty Memories tab');
  await expectAccessible(page, 'the empty Memories tab in en-XA');

  await page.getByRole('button', { name: m('actions.newFolder') }).click();
  await expect(page.getByLabel(m('create.folderLabel'))).toBeVisible();
  await expectAllTranslated(page, 'the new-folder form');
  await page.getByRole('button', { name: m('actions.cancel'), exact: true }).click();

  await page.getByRole('button', { name: m('actions.newMemory') }).click();
  await page.getByLabel(m('create.fileLabel')).fill('/memories/notes.md');
  await expectAllTranslated(page, 'the new-memory form');
  await page.getByRole('button', { name: m('actions.create'), exact: true }).click();
  await expect(page.getByRole('treeitem', { name: /notes\.md/ })).toBeVisible();

  await editor(page).click();
  await page.keyboard.type('The user prefers tea.');
  await expect(page.getByLabel(m('editor.unsaved')).first()).toBeVisible();
  await expectAllTranslated(page, 'the editor with unsaved changes');
  await expectAccessible(page, 'the editor in en-XA');

  // CodeMirror's own find panel, from the catalog too.
  await page.keyboard.press('ControlOrMeta+F');
  await expect(page.locator('.cm-search')).toBeVisible();
  await expectAllTranslated(page, 'the editor find panel');
  await page.keyboard.press('Escape');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel(m('editor.unsaved'))).toHaveCount(0);

  await page.getByRole('button', { name: m('actions.rename'), exact: true }).click();
  await expect(page.getByLabel(m('rename.newPath'))).toBeVisible();
  await expectAllTranslated(page, 'the rename form');
  await page.getByLabel(m('rename.newPath')).press('Escape');

  await page.getByRole('toolbar', { name: m('editor.toolbar') }).getByRole('button', { name: m('actions.delete'), exact: true }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible();
  await expectAllTranslated(page, 'the delete question');
  await page.getByRole('alertdialog').getByRole('button', { name: m('actions.cancel') }).click();

  await page.getByRole('button', { name: m('actions.moveOrCopy') }).click();
  await expect(page.getByText(m('transfer.noOther'))).toBeVisible();
  await expectAllTranslated(page, 'move or copy without another project');
});

test('a change from Claude and an app: live notice, tree badges, History, the review inbox', async () => {
  const { page } = app;
  const conversations = new Conversations(vault());
  const conv = await conversations.create();
  await conversations.rename(conv.id, 'Trip planning');
  await vault().memory.writeFile('/memories/notes.md', 'The user prefers green tea.', { mode: 'update', source: 'claude', by: { kind: 'claude', conversationId: conv.id, turn: 2 } });
  await expect(page.getByRole('status')).toContainText(m('editor.notice.claudeUpdated'));
  await vault().memory.writeFile('/memories/work/plan.md', 'Plan', { mode: 'create', source: 'claude' });
  await vault().memory.writeFile('/memories/work/app.md', 'From an app', { mode: 'create', source: 'claude', by: { kind: 'mcp', client: 'Cursor' } });
  await page.getByRole('treeitem', { name: /^work/ }).click();
  await expect(page.getByRole('treeitem', { name: /plan\.md/ })).toBeVisible();
  await page.getByRole('button', { name: m('tree.showDetails') }).click();
  await expectAllTranslated(page, 'the tree with badges and details');
  await page.getByRole('button', { name: m('tree.showDetails') }).click();

  await page.getByRole('treeitem', { name: /notes\.md/ }).click();
  await page.getByRole('button', { name: m('actions.history') }).click();
  const history = page.getByRole('complementary', { name: m('history.label') });
  await expect(history.getByRole('button', { name: new RegExp(`^${escape(m('history.versionCurrent', { version: 3 }))}`) })).toBeVisible();
  await history.getByRole('button').last().click();
  await expectAllTranslated(page, 'History with a diff');
  await expectAccessible(page, 'History in en-XA');
  await page.getByRole('button', { name: m('actions.history') }).click();

  await page.getByRole('button', { name: `${m('review.title')} 3`, exact: true }).click();
  const pane = page.getByRole('region', { name: m('review.title') });
  await pane.getByRole('list', { name: m('review.list') }).getByRole('button').first().click();
  await expect(pane.getByRole('button', { name: m('review.mark') })).toBeVisible();
  await expectAllTranslated(page, 'the review inbox with a change open');
  await expectAccessible(page, 'the review inbox in en-XA');
  await pane.getByRole('button', { name: m('review.markAll') }).click();
  await expect(pane.getByText(m('review.nothing'))).toBeVisible();
  await expectAllTranslated(page, 'the review inbox emptied');
  await page.getByRole('button', { name: m('review.title'), exact: true }).click();
});

test('a folder, its delete question, search hits and no match', async () => {
  const { page } = app;
  await page.getByRole('treeitem', { name: /^work/ }).click();
  await expect(page.getByRole('toolbar', { name: m('folder.toolbar') })).toBeVisible();
  await expectAllTranslated(page, 'a folder');
  await page.getByRole('toolbar', { name: m('folder.toolbar') }).getByRole('button', { name: m('actions.delete'), exact: true }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible();
  await expectAllTranslated(page, 'the delete-folder question');
  await page.getByRole('alertdialog').getByRole('button', { name: m('actions.cancel') }).click();

  const box = page.getByRole('searchbox', { name: m('search.label') });
  await box.fill('plan');
  await expect(page.getByRole('list', { name: m('search.results') })).toBeVisible();
  await expectAllTranslated(page, 'search hits');
  await box.fill('nothing like this');
  await expect(page.locator('.memories')).toContainText(m('search.noMatch').split('<0>')[0]!.slice(0, 10));
  await expectAllTranslated(page, 'a search without a match');
  await box.fill('');
});

test('the trash: a deleted memory, its versions, the empty-trash question, the empty trash', async () => {
  const { page } = app;
  await page.getByRole('treeitem', { name: /notes\.md/ }).click();
  await page.getByRole('toolbar', { name: m('editor.toolbar') }).getByRole('button', { name: m('actions.delete'), exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: m('actions.delete'), exact: true }).click();
  await expect(page.getByRole('treeitem', { name: /notes\.md/ })).toHaveCount(0);
  await page.getByRole('button', { name: m('actions.trash') }).click();
  const trash = page.getByRole('region', { name: m('trash.label') });
  await trash.getByRole('button', { name: /notes\.md/ }).click();
  await expect(trash.getByRole('button', { name: m('trash.restore') })).toBeVisible();
  await expectAllTranslated(page, 'the trash with a memory open');
  await expectAccessible(page, 'the trash in en-XA');
  await trash.getByRole('button', { name: m('trash.empty') }).click();
  await expectAllTranslated(page, 'the empty-trash question');
  await page.getByRole('alertdialog').getByRole('button', { name: m('trash.deletePermanently') }).click();
  await expect(trash.getByText(m('trash.isEmpty'))).toBeVisible();
  await expectAllTranslated(page, 'the empty trash');
  await page.getByRole('button', { name: m('actions.trash') }).click();
});

test('the merge view and the discard question', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/trip.md', 'Flight: Monday', { mode: 'create', source: 'user' });
  await page.getByRole('treeitem', { name: /trip\.md/ }).click();
  await expect(editor(page)).toContainText('Flight: Monday');
  await editor(page).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Flight: Tuesday');
  await vault().memory.writeFile('/memories/trip.md', 'Flight: Wednesday', { mode: 'update', source: 'claude' });
  await expect(page.getByRole('status')).toContainText(m('editor.notice.changedElsewhere').slice(0, 12));
  await expectAllTranslated(page, 'the notice of a change made elsewhere');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByRole('button', { name: m('merge.save') })).toBeVisible();
  await expectAllTranslated(page, 'the merge view');
  await expectAccessible(page, 'the merge view in en-XA');
  await page.getByRole('button', { name: m('merge.back') }).click();

  await vault().memory.writeFile('/memories/other.md', 'Other', { mode: 'create', source: 'user' });
  await page.getByRole('treeitem', { name: /other\.md/ }).click();
  const ask = page.getByRole('alertdialog', { name: m('discard.label') });
  await expect(ask).toBeVisible();
  await expectAllTranslated(page, 'the discard question');
  await ask.getByRole('button', { name: m('discard.discard') }).click();
  await expect(editor(page)).toContainText('Other');
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
