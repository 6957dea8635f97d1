/** The message catalogs (issue 21): every language agrees with en, and every key of en is used. */
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../../electron/shared/languages';
import { checkLanguage, INCOMPLETE_LANGUAGES, readCatalogs, unusedKeys } from './catalog-check';

const catalogs = readCatalogs();
const en = catalogs.en!;

describe('the catalogs', () => {
  it('en has every plural form English needs and no stray placeholder', () => {
    expect(checkLanguage('en', en, en)).toEqual([]);
  });

  // Translators: take your language off INCOMPLETE_LANGUAGES (catalog-check.ts) when it is finished.
  it.each(LANGUAGE_CODES.filter((l) => l !== 'en'))('%s has no key en lacks, the same placeholders, and its plural forms', (lng) => {
    expect(checkLanguage(lng, catalogs[lng]!, en, INCOMPLETE_LANGUAGES.includes(lng))).toEqual([]);
  });

  it('every language not listed in INCOMPLETE_LANGUAGES has every key of en', () => {
    const missing = LANGUAGE_CODES.filter((l) => !INCOMPLETE_LANGUAGES.includes(l)).flatMap((lng) => checkLanguage(lng, catalogs[lng]!, en));
    expect(missing).toEqual([]);
    // Until every translation is finished this names who is left; the list only ever shrinks.
    expect(INCOMPLETE_LANGUAGES.every((l) => (LANGUAGE_CODES as readonly string[]).includes(l) && l !== 'en')).toBe(true);
  });

  it('every key of en is used by the code, as a string literal', () => {
    expect(unusedKeys(en)).toEqual([]);
  });
});

describe('the check itself', () => {
  const source = { unlock: { title: 'Unlock {{name}}', tries_one: '{{count}} try', tries_other: '{{count}} tries' } };

  it('catches a missing key, a key en lacks and an extra placeholder', () => {
    const bad = { unlock: { title: 'Desbloquear {{name}} {{extra}}', surplus: 'x', tries_one: '{{count}} tentativa', tries_many: '{{count}} de tentativas', tries_other: '{{count}} tentativas' } };
    expect(checkLanguage('pt-BR', bad, source)).toEqual([
      'pt-BR unlock:title: placeholders {{extra}} {{name}} differ from en\'s {{name}}',
      'pt-BR unlock:surplus: not in en',
    ]);
    expect(checkLanguage('pt-BR', { unlock: { tries_one: 'a', tries_many: 'b', tries_other: 'c' } }, source)).toEqual(['pt-BR unlock:title: missing']);
    // An incomplete language may lack keys, but not break the rest.
    expect(checkLanguage('pt-BR', { unlock: { surplus: 'x' } }, source, true)).toEqual(['pt-BR unlock:surplus: not in en']);
  });

  it("asks for each plural form of the language's Intl.PluralRules categories, and only those", () => {
    expect(checkLanguage('ja', { unlock: { title: '{{name}}', tries_other: '{{count}} 回' } }, source)).toEqual([]);
    // Portuguese picks "many" for a million (1.000.000 de tentativas): Intl.PluralRules says so, and i18next follows it.
    expect(checkLanguage('pt-BR', { unlock: { title: '{{name}}', tries_other: '{{count}}' } }, source)).toEqual(['pt-BR unlock:tries: plural form _one missing', 'pt-BR unlock:tries: plural form _many missing']);
    expect(checkLanguage('ja', { unlock: { title: '{{name}}', tries_one: '1', tries_other: '{{count}}' } }, source)).toContain("ja unlock:tries: plural form _one is not one of ja's (other)");
  });

  it('finds a key no code uses, and counts literals in const maps and i18nKey attributes as uses', () => {
    const catalogs = { common: { used: 'a', mapped: 'b', trans: 'c', unused: 'd' }, errors: { gone: 'e', kept: 'f' } };
    const code = [`t('used')`, `const KEYS = { x: 'mapped' } as const;`, `<Trans i18nKey="trans" />`, `m('errors:kept')`, 'unused thing'];
    expect(unusedKeys(catalogs, code)).toEqual(['common:unused', 'errors:gone']);
  });
});
