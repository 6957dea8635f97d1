/**
 * The unlock screen, Settings, the "Go to" palette and the shortcut sheet in each shipped language
 * (issue 21): named in the language by role, `<html lang>` set, axe clean; the Language setting
 * switches the window live; each language gets its script's system fonts (zh-CN's Chinese faces,
 * ja's Japanese ones). Under MNEMO_SCREENS=1 each screen is photographed for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { LanguageCode } from '../../electron/shared/languages';
import { expectAccessible, PASSPHRASE, readyApp, shot } from './helpers';
import { randomSeed, rotate } from '../deep';

const LOCALES = path.resolve(import.meta.dirname, '../../electron/shared/locales');

/** A catalog string of `lang` (`settings:security.title`), as the window shows it (these catalogs are complete). */
function tr(lang: LanguageCode, nsKey: string): string {
  const [ns, key] = nsKey.split(':') as [string, string];
  const catalog = JSON.parse(fs.readFileSync(path.join(LOCALES, lang, `${ns}.json`), 'utf8')) as unknown;
  const text = key.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown> | undefined)?.[k], catalog);
  if (typeof text !== 'string') throw new Error(`no string ${lang} ${nsKey}`);
  return text;
}

/** Scrolls the section named `heading` into view and photographs the window. */
async function shotSection(page: Page, lang: string, heading: string, name: string): Promise<void> {
  await page.getByRole('heading', { name: heading, exact: true }).scrollIntoViewIfNeeded();
  await shot(page, `i18n-settings-${lang}-${name}`);
}

// One language per run, taken in turn by the printed seed (all five under test:deep): each is a full walk; every
// other spec runs in English.
// The seed is offset per spec so that one run's three specs tend to take different languages.
for (const lang of rotate([], ['en', 'zh-CN', 'ja', 'id', 'pt-BR'] as const, 1, randomSeed('i18n-settings: languages') + 2)) {
  test(`unlock, Settings, the palette and the shortcut sheet in ${lang}`, async () => {
    const app = await readyApp({ locale: lang });
    const t = (key: string) => tr(lang, key);
    try {
      const { page } = app;
      await expect(page.locator('html')).toHaveAttribute('lang', lang);

      // The unlock screen.
      await app.session.lock('user');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t('unlock:unlock.title'));
      await expectAccessible(page, `the unlock screen in ${lang}`);
      await shot(page, `i18n-settings-${lang}-unlock`);
      await page.locator('.passphrase-field input').fill(PASSPHRASE);
      await page.locator('.passphrase-field input').press('Enter');

      // Settings, section by section.
      await page.getByRole('tab', { name: t('common:tabs.settings') }).click();
      for (const section of ['connection', 'claude', 'security', 'otherApps', 'language']) {
        await expect(page.getByRole('heading', { level: 2, name: t(`settings:${section}.title`), exact: true })).toBeVisible();
      }
      await expect(page.getByRole('button', { name: t('settings:claude.save') })).toBeVisible();
      await expect(page.getByRole('radio', { name: t('settings:otherApps.access.off') })).toBeChecked();
      await expectAccessible(page, `Settings in ${lang}`);
      await shotSection(page, lang, t('settings:connection.title'), '1-connection');
      await shotSection(page, lang, t('settings:security.title'), '2-security');
      await shotSection(page, lang, t('settings:security.rotate.title'), '3-security-rotate');
      await shotSection(page, lang, t('settings:otherApps.title'), '4-other-apps');
      await shotSection(page, lang, t('settings:otherApps.calls.title'), '5-other-apps-calls');
      await shotSection(page, lang, t('settings:language.title'), '6-language');

      // The palette, then the shortcut sheet from it.
      await page.keyboard.press('Control+k');
      const box = page.getByRole('combobox', { name: t('palette:input') });
      await expect(box).toBeFocused();
      await expect(page.getByRole('option', { name: t('settings:security.title') })).toBeVisible();
      await expect(page.getByRole('option', { name: t('palette:action.shortcuts') })).toBeVisible();
      await expectAccessible(page, `the palette in ${lang}`);
      await shot(page, `i18n-settings-${lang}-palette`);
      await box.fill(t('palette:action.shortcuts'));
      await page.keyboard.press('Enter');
      const sheet = page.getByRole('dialog', { name: t('palette:shortcuts.title') });
      await expect(sheet.getByRole('heading', { name: t('palette:shortcuts.group.anywhere') })).toBeVisible();
      await expect(sheet.getByRole('cell', { name: t('palette:shortcuts.action.lock') })).toBeVisible();
      await expectAccessible(page, `the shortcut sheet in ${lang}`);
      await shot(page, `i18n-settings-${lang}-shortcuts`);
    } finally {
      await app.cleanup();
    }
  });
}

test('the Language setting switches the window live, and each language gets its own script’s fonts', async () => {
  const app = await readyApp({ locale: 'en-US' });
  try {
    const { page } = app;
    const fontOf = (selector: string) => page.locator(selector).first().evaluate((el) => getComputedStyle(el).fontFamily);
    expect(await fontOf('body')).not.toMatch(/PingFang|Hiragino/);
    await page.getByRole('tab', { name: 'Settings' }).click();
    const select = page.getByRole('combobox', { name: 'Language of the window' });

    await select.selectOption('zh-CN');
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await expect(page.getByRole('tab', { name: tr('zh-CN', 'common:tabs.settings') })).toBeVisible();
    await expect(page.getByRole('heading', { name: tr('zh-CN', 'settings:security.title'), exact: true })).toBeVisible();
    const chinese = await fontOf('body');
    expect(chinese).toMatch(/PingFang SC.*Microsoft YaHei.*Noto Sans CJK SC/);
    expect(chinese).not.toMatch(/Hiragino|Yu Gothic|Noto Sans CJK JP/);
    // Code and keys keep their monospace face.
    expect(await fontOf('.settings code')).not.toMatch(/PingFang/);

    await page.getByRole('combobox', { name: tr('zh-CN', 'settings:language.label') }).selectOption('ja');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await expect(page.getByRole('heading', { name: tr('ja', 'settings:security.title'), exact: true })).toBeVisible();
    const japanese = await fontOf('body');
    expect(japanese).toMatch(/Hiragino Sans.*Yu Gothic UI.*Meiryo.*Noto Sans CJK JP/);
    expect(japanese).not.toMatch(/PingFang|YaHei|Noto Sans CJK SC/);
    await expectAccessible(page, 'Settings switched to ja');

    for (const lang of ['id', 'pt-BR'] as const) {
      await page.locator('section[aria-labelledby="language"] select').selectOption(lang);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await expect(page.getByRole('heading', { name: tr(lang, 'settings:otherApps.title'), exact: true })).toBeVisible();
      expect(await fontOf('body')).not.toMatch(/PingFang|Hiragino/);
    }
    // The palette follows a switch made while the window is open.
    await page.keyboard.press('Control+k');
    await expect(page.getByRole('option', { name: tr('pt-BR', 'palette:action.new') })).toBeVisible();
  } finally {
    await app.cleanup();
  }
});
