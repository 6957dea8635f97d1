/**
 * The Memories tab in each shipped language (issue 21): browse the tree, open a memory, edit and
 * save it, read its History. Names by role come from that language's catalog, `<html lang>`
 * follows, axe finds nothing serious; screenshots (MNEMO_SCREENS=1) are for a person to look at
 * for clipped, overflowing or untranslated text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { expectAccessible, readyApp, shot } from './helpers';
import { randomSeed, rotate } from '../deep';

const LOCALES = path.resolve(import.meta.dirname, '../../electron/shared/locales');
type Catalog = { [key: string]: string | Catalog };
const load = (lng: string, ns: string) => JSON.parse(fs.readFileSync(path.join(LOCALES, lng, `${ns}.json`), 'utf8')) as Catalog;
const lookup = (catalog: Catalog, key: string) => key.split('.').reduce<string | Catalog | undefined>((at, k) => (typeof at === 'object' ? at[k] : undefined), catalog);

/** A catalog string of `lng` with `{{x}}` filled (English where the language lacks it, as the window falls back). */
function tr(lng: string, ns: 'common' | 'memories', key: string, values: Record<string, string | number> = {}): string {
  const text = lookup(load(lng, ns), key) ?? lookup(load('en', ns), key);
  if (typeof text !== 'string') throw new Error(`no string ${ns}:${key}`);
  return text.replace(/\{\{\s*(\w+)[^}]*\}\}/g, (_, k: string) => String(values[k]));
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// One language per run, taken in turn by the printed seed (all five under test:deep): each is a full walk; every
// other spec runs in English.
// The seed is offset per spec so that one run's three specs tend to take different languages.
for (const lng of rotate([], ['en', 'zh-CN', 'ja', 'id', 'pt-BR'], 1, randomSeed('i18n-memories: languages') + 1)) {
  test(`browse, open, edit and read the history of a memory in ${lng}`, async () => {
    // Five screens, each checked by axe in light and dark: longer than one step of a spec.
    test.setTimeout(180_000);
    const app = await readyApp({ locale: lng });
    const m = (key: string, values?: Record<string, string | number>) => tr(lng, 'memories', key, values);
    try {
      const { page } = app;
      await expect(page.locator('html')).toHaveAttribute('lang', lng);
      const vault = app.session.unlocked();
      const conversations = new Conversations(vault);
      const conv = await conversations.create();
      await conversations.rename(conv.id, 'Trip planning');
      await vault.memory.writeFile('/memories/preferences.md', '# Preferences\nThe user prefers tea over coffee.', { mode: 'create', source: 'user' });
      await vault.memory.writeFile('/memories/projects/atlas.md', 'Project Atlas: launch in March.', { mode: 'create', source: 'claude', by: { kind: 'claude', conversationId: conv.id, turn: 2 } });
      await vault.memory.writeFile('/memories/projects/cursor-notes.md', 'Notes from Cursor.', { mode: 'create', source: 'claude', by: { kind: 'mcp', client: 'Cursor' } });

      await page.getByRole('tab', { name: new RegExp(`^${escape(tr(lng, 'common', 'tabs.memories'))}`) }).click();
      await expect(page.getByRole('button', { name: m('actions.newMemory') })).toBeVisible();
      await expect(page.getByRole('button', { name: `${m('review.title')} 2`, exact: true })).toBeVisible();
      await expect(page.getByRole('tree', { name: m('tree.label') })).toBeVisible();
      await page.getByRole('treeitem', { name: /^projects/ }).click();
      await expect(page.getByRole('treeitem', { name: /atlas\.md/ })).toBeVisible();
      await expect(page.getByRole('toolbar', { name: m('folder.toolbar') })).toBeVisible();
      await expectAccessible(page, `the memory tree in ${lng}`);
      await shot(page, `i18n-memories-${lng}-1-tree`);

      await page.getByRole('treeitem', { name: /preferences\.md/ }).click();
      const editor = page.getByRole('textbox', { name: m('editor.label') });
      await expect(editor).toContainText('tea over coffee');
      await editor.click();
      await page.keyboard.press('ControlOrMeta+End');
      await page.keyboard.type('\nShe also likes jasmine.');
      await expect(page.getByLabel(m('editor.unsaved')).first()).toBeVisible();
      await shot(page, `i18n-memories-${lng}-2-editor-unsaved`);
      await page.keyboard.press('ControlOrMeta+S');
      await expect(page.getByLabel(m('editor.unsaved'))).toHaveCount(0);
      expect(await vault.memory.readFile('/memories/preferences.md')).toContain('jasmine');
      await expectAccessible(page, `the editor in ${lng}`);

      await page.getByRole('button', { name: m('actions.history'), exact: true }).click();
      const history = page.getByRole('complementary', { name: m('history.label') });
      await expect(history.getByRole('button', { name: new RegExp(`^${escape(m('history.versionCurrent', { version: 2 }))}`) })).toBeVisible();
      await history.getByRole('button', { name: new RegExp(`^${escape(m('history.version', { version: 1 }))}`) }).click();
      await expect(history).toContainText(m('history.changesFrom', { version: 1 }));
      await expectAccessible(page, `History in ${lng}`);
      await shot(page, `i18n-memories-${lng}-3-history`);
      await page.getByRole('button', { name: m('actions.history'), exact: true }).click();

      await page.getByRole('button', { name: `${m('review.title')} 2`, exact: true }).click();
      const pane = page.getByRole('region', { name: m('review.title') });
      await pane.getByRole('list', { name: m('review.list') }).getByRole('button', { name: /atlas\.md/ }).click();
      await expect(pane.getByRole('button', { name: m('review.mark'), exact: true })).toBeVisible();
      await expectAccessible(page, `the review inbox in ${lng}`);
      await shot(page, `i18n-memories-${lng}-4-review`);

      await page.getByRole('button', { name: m('actions.trash') }).click();
      await expect(page.getByRole('region', { name: m('trash.label') })).toContainText(m('trash.isEmpty'));
      await shot(page, `i18n-memories-${lng}-5-trash`);
    } finally {
      await app.cleanup();
    }
  });
}
