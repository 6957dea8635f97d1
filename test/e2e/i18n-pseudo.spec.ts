/**
 * Every string of the converted screens comes from a catalog (issue 21): the app runs in the
 * pseudo-locale en-XA, where each catalog string is bracketed and accented, and no visible text,
 * label, placeholder or title may be left outside brackets. Later phases add their screens here
 * (and drop the `within`/`skip` limits below once their areas are converted).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import common from '../../electron/shared/locales/en/common.json' with { type: 'json' };
import settings from '../../electron/shared/locales/en/settings.json' with { type: 'json' };
import unlock from '../../electron/shared/locales/en/unlock.json' with { type: 'json' };
import { pseudoLocalize } from '../../renderer/lib/i18n/pseudo';
import { expectAccessible, freshApp, PASSPHRASE, readyApp } from './helpers';
import { untranslated } from './untranslated';

/** The en-XA text of an en catalog string (`unlock`, `create.submit`), as the window shows it. */
function px(ns: 'common' | 'unlock' | 'settings', key: string): string {
  const catalog = { common, unlock, settings }[ns] as Record<string, unknown>;
  const text = key.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown>)[k], catalog);
  if (typeof text !== 'string') throw new Error(`no string ${ns}:${key}`);
  return pseudoLocalize(text);
}

async function expectAllTranslated(page: Page, screen: string, opts: Parameters<typeof untranslated>[1] = {}): Promise<void> {
  expect(await untranslated(page, opts), `text outside the catalogs on ${screen}`).toEqual([]);
}

test('first run, recovery key, API key step and unlock speak only catalog strings (en-XA)', async () => {
  const app = await freshApp({ locale: 'en-XA' });
  try {
    const { page } = app;
    await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    const create = page.getByRole('button', { name: px('unlock', 'create.submit'), exact: true });
    await expect(create).toBeVisible();
    await expectAllTranslated(page, 'the create-vault screen');

    // A weak passphrase: the meter's word and main's feedback, and the refusal, all from catalogs.
    const fields = page.locator('.passphrase-field input');
    await fields.nth(0).fill('password123456');
    await expect(page.locator('.strength-word')).toBeVisible();
    expect([px('common', 'strength.level.tooWeak'), px('common', 'strength.level.weak')]).toContain(await page.locator('.strength-word').textContent());
    await create.click();
    await expect(page.getByRole('alert')).toBeVisible();
    await expectAllTranslated(page, 'the create-vault screen with a weak passphrase');
    await expectAccessible(page, 'the create-vault screen in en-XA');

    await fields.nth(0).fill(PASSPHRASE);
    await fields.nth(1).fill(PASSPHRASE);
    await expect(page.locator('.strength')).toHaveAttribute('data-level', 'strong');
    await create.click();
    await expect(page.locator('output.recovery-key')).toBeVisible();
    await page.getByRole('button', { name: px('unlock', 'recoveryKey.done') }).click();
    await expect(page.getByRole('alert')).toHaveText(px('unlock', 'recoveryKey.mismatch'));
    await expectAllTranslated(page, 'the recovery-key screen');

    const key = (await page.locator('output.recovery-key').textContent())!.trim();
    await page.getByRole('textbox').fill(key.split('-').at(-1)!);
    await page.getByRole('button', { name: px('unlock', 'recoveryKey.done') }).click();
    await expect(page.getByRole('heading', { name: px('unlock', 'apiKey.title') })).toBeVisible();
    await expectAllTranslated(page, 'the API key step');
    await page.getByRole('button', { name: px('unlock', 'apiKey.skip') }).click();

    // The shell around the sections (the sections themselves are later phases').
    const lockButton = page.getByRole('button', { name: px('common', 'shell.lock'), exact: true });
    await expect(lockButton).toBeVisible();
    await expectAllTranslated(page, 'the top bar', { within: '.topbar' });

    // Locked by the idle timer: the reason, the unlock screen, a wrong passphrase refused by main in the window's language.
    await app.session.lock('idle');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(px('unlock', 'unlock.title'));
    const field = page.locator('.passphrase-field input');
    await field.fill('not the passphrase at all');
    await field.press('Enter');
    await expect(page.getByRole('alert')).toContainText('⟦Ŵŕöñĝ þáššþĥŕášé');
    await expectAllTranslated(page, 'the unlock screen after a wrong passphrase and an idle lock');
    await expectAccessible(page, 'the unlock screen in en-XA');

    await page.getByRole('button', { name: px('unlock', 'unlock.useRecoveryKey') }).click();
    await page.getByRole('textbox').fill('AAAA-BBBB');
    await page.getByRole('textbox').press('Enter');
    await expect(page.getByRole('alert')).toContainText('⟦Ţĥáţ îš ñöţ á ŕéçöṽéŕý ķéý');
    await expectAllTranslated(page, 'the recovery-key unlock with a malformed key');
  } finally {
    await app.cleanup();
  }
});

test('the Language setting switches the window live, is kept outside the vault, and holds on the unlock screen', async () => {
  const app = await readyApp({ locale: 'en-XA' });
  try {
    const { page } = app;
    await page.getByRole('tab', { name: px('common', 'tabs.settings') }).click();
    const section = page.locator('section[aria-labelledby="language"]');
    await expectAllTranslated(page, 'the Language setting', { within: 'section[aria-labelledby="language"]' });
    const select = section.getByRole('combobox');
    await expect(select.locator('option')).toHaveText([px('settings', 'language.system').replace('{{language}}', 'en-XA'), 'English', '简体中文', '日本語', 'Bahasa Indonesia', 'Português (Brasil)']);

    // English chosen: the window turns English at once, without a reload.
    await select.selectOption('en');
    await expect(page.getByRole('tab', { name: 'Settings' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    const stored = JSON.parse(await fs.readFile(path.join(app.userDataDir, 'preferences.json'), 'utf8')) as unknown;
    expect(stored).toEqual({ language: 'en' });

    // Japanese: <html lang> follows (CJK glyphs), and the shell speaks it.
    await select.selectOption('ja');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await expect(page.getByRole('tab', { name: '設定' })).toBeVisible();

    // Before unlock too: the choice is main's device preference, not the vault's.
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await app.session.lock('user');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Mnemo のロックを解除');
    await expect(page.locator('.passphrase-field')).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');

    // Back to System: the pseudo-locale again, from the browser's language.
    await page.locator('.passphrase-field input').fill(PASSPHRASE);
    await page.locator('.passphrase-field input').press('Enter');
    await page.getByRole('tab', { name: '設定' }).click();
    await section.getByRole('combobox').selectOption('system');
    await expect(page.getByRole('tab', { name: px('common', 'tabs.settings') })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
  } finally {
    await app.cleanup();
  }
});

test('the window follows the system language: the best of the shipped five, else English', async () => {
  for (const [locale, lang] of [
    ['ja-JP', 'ja'],
    ['pt-PT', 'pt-BR'],
    ['zh-Hans-CN', 'zh-CN'],
    ['fr-FR', 'en'],
  ] as const) {
    const app = await freshApp({ locale });
    try {
      await expect(app.page.locator('html')).toHaveAttribute('lang', lang);
      // The other languages' catalogs are filled by translators; until then a string falls back to English.
      await expect(app.page.getByRole('heading', { level: 1 })).toBeVisible();
    } finally {
      await app.cleanup();
    }
  }
});
