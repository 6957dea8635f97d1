/** Which of the shipped languages a system's language list picks (main, the CLI and the window run one copy: electron/shared/language-match.ts). */
import { expect, it } from 'vitest';
import { matchLanguage as mainMatch } from '../../../electron/shared/languages';
import { matchLanguage as windowMatch, systemLanguage } from '../../../renderer/lib/i18n/languages';

const TABLE: Array<[string[], string]> = [
  [['en-US'], 'en'],
  [['en-GB', 'ja'], 'en'],
  [['ja-JP'], 'ja'],
  [['ja'], 'ja'],
  [['zh'], 'zh-CN'],
  [['zh-Hans'], 'zh-CN'],
  [['zh-CN'], 'zh-CN'],
  [['zh_CN'], 'zh-CN'],
  [['zh-Hans-SG'], 'zh-CN'],
  [['zh-TW', 'ja'], 'ja'],
  [['zh-Hant-HK'], 'zh-CN'],
  [['pt'], 'pt-BR'],
  [['pt-BR'], 'pt-BR'],
  [['pt-PT'], 'pt-BR'],
  [['in'], 'id'],
  [['id-ID'], 'id'],
  [['fr-FR', 'de'], 'en'],
  [['fr-FR', 'pt-BR'], 'pt-BR'],
  [[], 'en'],
];

it.each(TABLE)('%j → %s, the same in the window and in main', (tags, lang) => {
  expect(windowMatch(tags)).toBe(lang);
  expect(mainMatch(tags)).toBe(lang);
});

it('the pseudo-locale is chosen only when a test asks for it first', () => {
  expect(systemLanguage(['en-XA'])).toBe('en-XA');
  expect(systemLanguage(['de', 'en-XA'])).toBe('en');
});
