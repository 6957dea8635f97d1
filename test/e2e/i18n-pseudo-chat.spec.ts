/**
 * The chat area speaks only catalog strings (issue 21): each of its screens and states in the
 * pseudo-locale en-XA, where every catalog string is bracketed, must leave no text outside brackets.
 * Text the user or Claude wrote is isolated (dir=auto, bdi) and so is left out by untranslated().
 */
import { expect, test, type Page } from '@playwright/test';
import { saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import chat from '../../electron/shared/locales/en/chat.json' with { type: 'json' };
import common from '../../electron/shared/locales/en/common.json' with { type: 'json' };
import { pseudoLocalize } from '../../renderer/lib/i18n/pseudo';
import { apiError, memoryCall, reply, startFakeAnthropic, text, thinking, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, readyApp, type FreshApp } from './helpers';
import { untranslated } from './untranslated';

/** The en-XA text of an en catalog string, as the window shows it (`{{x}}` filled from `values`). */
function px(ns: 'chat' | 'common', key: string, values: Record<string, string> = {}): string {
  const text = key.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown>)[k], { chat, common }[ns]);
  if (typeof text !== 'string') throw new Error(`no string ${ns}:${key}`);
  return Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, v), pseudoLocalize(text));
}

async function expectAllTranslated(page: Page, screen: string, opts: Parameters<typeof untranslated>[1] = {}): Promise<void> {
  expect(await untranslated(page, opts), `text outside the catalogs on ${screen}`).toEqual([]);
}

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ locale: 'en-XA', anthropicBaseURL: fake.baseURL });
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

const button = (page: Page, key: string, values?: Record<string, string>) => page.getByRole('button', { name: px('chat', key, values), exact: true });

test('the chat, its replies, chips, versions, approvals and errors speak only catalog strings (en-XA)', async () => {
  const { page } = app;
  await saveSettings(app.session.unlocked(), { thinking: true });
  await expect(page.getByRole('heading', { name: px('chat', 'greeting.title') })).toBeVisible();
  await expectAllTranslated(page, 'the empty chat with its greeting');

  // A reply with thinking, a viewed folder and a created file; the chip opened to its result and diff.
  fake.script(
    reply(thinking('Let me look.'), text('Checking.'), memoryCall({ command: 'view', path: '/memories' })),
    reply(memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Prefs\n- tea\n' })),
    reply(text('Noted: you like **tea**.')),
  );
  const box = page.getByRole('textbox', { name: px('chat', 'composer.message') });
  await box.fill('I like tea.');
  await box.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted: you like tea.');
  await page.locator('.chip-head').last().click();
  await page.locator('details.thinking summary').first().click();
  await expect(page.getByRole('button', { name: px('chat', 'tool.open') })).toBeVisible();
  await expectAllTranslated(page, 'a reply with thinking and an opened chip');
  await expectAccessible(page, 'the chat with a reply in en-XA');

  // Regenerate: two versions of the reply and the switch between them.
  fake.script(reply(text('Tea it is.')));
  await button(page, 'transcript.regenerate').last().click();
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Tea it is.');
  await expect(page.getByRole('group', { name: px('chat', 'versions.label') }).first()).toBeVisible();
  await expectAllTranslated(page, 'a regenerated reply with its versions');

  // Editing the last message in place.
  await button(page, 'transcript.editLabel').last().click();
  await expect(page.getByRole('textbox', { name: px('chat', 'edit.field') })).toBeVisible();
  await expectAllTranslated(page, 'editing a message');
  await button(page, 'edit.cancel').click();

  // Approval mode: the card asking for a change.
  await saveSettings(app.session.unlocked(), { approvalMode: true });
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/plan.md', file_text: 'the plan' })), reply(text('Fine.')));
  await box.fill('Remember my plan.');
  await box.press('Enter');
  const card = page.locator('.approval');
  await expect(card).toBeVisible();
  await expectAllTranslated(page, 'an approval card');
  await card.getByRole('button', { name: px('chat', 'approval.deny') }).click();
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Fine.');
  await expectAllTranslated(page, 'a denied change');

  // An API error, with Retry.
  fake.script(apiError(500, 'api_error', 'Internal server error'));
  await box.fill('Again?');
  await box.press('Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  // The sentence itself is main's (electron/core/chat's turn errors, not converted yet); what is around it is the chat's.
  await expectAllTranslated(page, 'a failed turn', { skip: ['.inline-error > p'] });

  // The memory pane beside the chat.
  await page.keyboard.press('ControlOrMeta+Shift+M');
  await expect(page.locator('aside.memory-pane, [role=complementary]').first()).toBeVisible();
  // The tree inside is the memories area's component (its own pseudo spec); the failed turn's sentence is main's, as above.
  await expectAllTranslated(page, 'the memory pane', { skip: ['.inline-error > p', '.memory-pane-tree > :not(.empty)'] });
});

test('the conversation list, its menus and dialogs, projects, search and temporary chats speak only catalog strings (en-XA)', async () => {
  const { page } = app;
  fake.script(reply(text('Hello.')));
  const box = page.getByRole('textbox', { name: px('chat', 'composer.message') });
  await box.fill('A first conversation');
  await box.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Hello.');

  // The row's menu and its delete confirmation.
  await page.getByRole('button', { name: px('chat', 'row.more', { title: 'A first conversation' }) }).click();
  await expect(page.getByRole('menu')).toBeVisible();
  await expectAllTranslated(page, "a conversation's menu");
  await page.getByRole('menuitem', { name: px('chat', 'row.delete') }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible();
  await expectAllTranslated(page, 'the delete confirmation');
  await page.getByRole('alertdialog').getByRole('button', { name: px('chat', 'row.cancel') }).click();

  // Search with no match, then with one.
  const search = page.getByRole('searchbox', { name: px('chat', 'rail.search') });
  await search.fill('zzzz');
  await expect(page.locator('.conversations .empty, li.empty').first()).toBeVisible();
  await expectAllTranslated(page, 'a search without results');
  await search.fill('first');
  await expect(page.getByRole('list', { name: px('chat', 'search.results') }).or(page.getByRole('region', { name: px('chat', 'search.results') }))).toBeVisible();
  await expectAllTranslated(page, 'search results');
  await search.fill('');

  // A new project, then its delete question.
  await button(page, 'project.new').click();
  await page.getByRole('textbox', { name: px('chat', 'project.nameField') }).fill('Garden');
  await expectAllTranslated(page, 'the new-project form');
  await button(page, 'project.create').click();
  await expect(page.getByRole('combobox', { name: px('chat', 'project.label') })).toBeVisible();
  await button(page, 'project.deleteLabel', { name: 'Garden' }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible();
  await expectAllTranslated(page, 'the delete-project question');
  await page.getByRole('alertdialog').getByRole('button', { name: px('chat', 'project.delete') }).click();
  await expect(button(page, 'project.deleted', { total: '1' })).toBeVisible();
  await button(page, 'project.deleted', { total: '1' }).click();
  await expectAllTranslated(page, 'the deleted projects');
  await page.keyboard.press('Escape');

  // A temporary chat and its greeting.
  await button(page, 'rail.newTemporary').click();
  await expect(page.getByRole('heading', { name: px('chat', 'greeting.temporaryTitle') })).toBeVisible();
  await expectAllTranslated(page, 'a temporary chat');
  await expectAccessible(page, 'a temporary chat in en-XA');
});
