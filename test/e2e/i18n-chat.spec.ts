/**
 * The chat's main flow in each shipped language (issue 21): the window in the system's language,
 * <html lang> set, the chat's controls named from that language's catalog, a reply with a memory
 * chip and the approval card, and axe clean. Screenshots (MNEMO_SCREENS=1) are for a person to
 * check for clipped, overflowing or untranslated text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import { memoryCall, reply, startFakeAnthropic, text } from '../fake-anthropic/server';
import { expectAccessible, readyApp, shot } from './helpers';
import { randomSeed, rotate } from '../deep';

const LOCALES = path.resolve(import.meta.dirname, '../../electron/shared/locales');
type Catalog = { [key: string]: string | Catalog };
const catalog = (lng: string): Catalog => JSON.parse(fs.readFileSync(path.join(LOCALES, lng, 'chat.json'), 'utf8')) as Catalog;

/** The chat string `key` in `lng` as the window shows it in plain text (English where the catalog lacks it). */
function tr(lng: string, key: string, values: Record<string, string> = {}): string {
  const find = (c: Catalog) => key.split('.').reduce<unknown>((at, k) => (at as Catalog | undefined)?.[k], c);
  const found = find(catalog(lng)) ?? find(catalog('en'));
  if (typeof found !== 'string') throw new Error(`no string chat:${key}`);
  return Object.entries(values)
    .reduce((s, [k, v]) => s.replaceAll(`{{${k}}}`, v), found)
    .replace(/<\/?\d+>/g, '');
}

// One language per run, taken in turn by the printed seed (all five under test:deep): each is a full walk; every
// other spec runs in English.
// The seed is offset per spec so that one run's three specs tend to take different languages.
const LANGUAGES = [
  ['en-US', 'en'],
  ['zh-CN', 'zh-CN'],
  ['ja-JP', 'ja'],
  ['id-ID', 'id'],
  ['pt-BR', 'pt-BR'],
] as const;
for (const [locale, lng] of rotate([], LANGUAGES, 1, randomSeed('i18n-chat: languages'))) {
  test(`the chat in ${lng}: controls, a reply with its memory chip and an approval card, in the window's language`, async () => {
    const fake = await startFakeAnthropic();
    const app = await readyApp({ locale, anthropicBaseURL: fake.baseURL });
    try {
      const { page } = app;
      await setApiKey(app.session.unlocked(), fake.apiKey);
      await expect(page.locator('html')).toHaveAttribute('lang', lng);
      await expect(page.getByRole('heading', { name: tr(lng, 'greeting.title') })).toBeVisible();
      await expect(page.getByRole('button', { name: tr(lng, 'rail.newConversation'), exact: true })).toBeVisible();
      await expect(page.getByRole('button', { name: tr(lng, 'composer.send'), exact: true })).toBeVisible();
      await expectAccessible(page, `the empty chat in ${lng}`);
      await shot(page, `i18n-chat-${lng}-greeting`);

      fake.script(
        reply(text('…'), memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Prefs\n- tea\n' })),
        reply(text('Noted: tea, no sugar.')),
      );
      const box = page.getByRole('textbox', { name: tr(lng, 'composer.message') });
      await box.fill('I drink tea, no sugar.');
      await box.press('Enter');
      const chip = page.getByRole('button', { name: tr(lng, 'tool.done.create', { path: '/memories/prefs.md' }) });
      await expect(chip).toBeVisible();
      await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted: tea, no sugar.');
      await chip.click();
      await expect(page.getByRole('button', { name: tr(lng, 'tool.open') })).toBeVisible();
      await expect(page.getByRole('button', { name: tr(lng, 'tool.undo') })).toBeVisible();
      await expectAccessible(page, `a reply with an opened chip in ${lng}`);
      await shot(page, `i18n-chat-${lng}-reply`);

      await saveSettings(app.session.unlocked(), { approvalMode: true });
      fake.script(reply(memoryCall({ command: 'create', path: '/memories/plan.md', file_text: 'the plan' })), reply(text('Fine.')));
      await box.fill('Remember my plan.');
      await box.press('Enter');
      const card = page.getByRole('group', { name: tr(lng, 'approval.label', { command: 'create', path: '/memories/plan.md' }) });
      await expect(card).toContainText(tr(lng, 'approval.claudeCreate', { path: '/memories/plan.md' }));
      await expectAccessible(page, `an approval card in ${lng}`);
      await shot(page, `i18n-chat-${lng}-approval`);
      await card.getByRole('button', { name: tr(lng, 'approval.approve') }).click();
      await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Fine.');
    } finally {
      await app.cleanup();
      await fake.close();
    }
  });
}
