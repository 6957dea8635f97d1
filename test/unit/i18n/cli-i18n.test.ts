/** The CLI's language comes from the POSIX locale variables, and its help lines up in wide scripts too. */
import { expect, it } from 'vitest';
import { cliLanguage, cliTranslator, columns, displayWidth, lsHelp } from '../../../electron/cli/i18n';
import { translator } from '../../../electron/core/i18n/translator';

it('LC_ALL wins over LC_MESSAGES, which wins over LANG; C and POSIX are English; an unset or empty one is passed over', () => {
  expect(cliLanguage({})).toBe('en');
  expect(cliLanguage({ LANG: 'ja_JP.UTF-8' })).toBe('ja');
  expect(cliLanguage({ LANG: 'ja_JP.UTF-8', LC_MESSAGES: 'pt_BR.UTF-8' })).toBe('pt-BR');
  expect(cliLanguage({ LANG: 'ja_JP.UTF-8', LC_MESSAGES: 'pt_BR.UTF-8', LC_ALL: 'zh_CN.GB18030' })).toBe('zh-CN');
  expect(cliLanguage({ LANG: 'ja_JP.UTF-8', LC_ALL: '' })).toBe('ja');
  expect(cliLanguage({ LANG: 'id_ID.UTF-8' })).toBe('id');
  expect(cliLanguage({ LANG: 'pt_PT@euro' })).toBe('pt-BR');
  expect(cliLanguage({ LANG: 'de_DE.UTF-8' })).toBe('en');
  expect(cliLanguage({ LANG: 'ja_JP.UTF-8', LC_ALL: 'C' })).toBe('en');
  expect(cliLanguage({ LANG: 'C.UTF-8' })).toBe('en');
  expect(cliLanguage({ LC_ALL: 'POSIX', LANG: 'ja_JP.UTF-8' })).toBe('en');
});

it('a language whose catalog lacks a key says it in English', () => {
  const t = translator('ja', { en: { cli: { only: 'Only in English' } }, ja: { cli: {} } });
  expect(t('cli:only')).toBe('Only in English');
});

it('the CLI translator says a key in the locale’s language', async () => {
  const t = await cliTranslator({ LANG: 'ja_JP.UTF-8' });
  expect(t('cli:help.ls.optionsTitle')).toBe('オプション:');
});

it('mnemo ls --help is built from the catalog', async () => {
  const help = await lsHelp({ LANG: 'C' });
  expect(help).toMatch(/^Usage: mnemo ls \[PATH\] \[options\]\n\n/);
  expect(help).toContain('  --project NAME            Work in that project');
});

it('columns line up by display width: a CJK character takes two columns, a combining mark none', () => {
  expect(displayWidth('日本語')).toBe(6);
  expect(displayWidth('e\u0301')).toBe(1);
  const text = columns([
    ['--項目', 'X'],
    ['--abcdef', 'Y'],
  ]);
  const [one, two] = text.split('\n');
  expect(displayWidth(one!.slice(0, one!.indexOf('X')))).toBe(displayWidth(two!.slice(0, two!.indexOf('Y'))));
});
