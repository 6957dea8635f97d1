/**
 * The window's languages: the five shipped, each named in its own language
 * for the Language setting, and the pseudo-locale the tests use.
 */
import type { LanguageCode } from '../../../electron/shared/languages';

export type { LanguageCode, LanguageChoice } from '../../../electron/shared/languages';

/** The shipped languages as the Language setting offers them, each in its own words (never translated). */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh-CN', name: '简体中文' },
  { code: 'ja', name: '日本語' },
  { code: 'id', name: 'Bahasa Indonesia' },
  { code: 'pt-BR', name: 'Português (Brasil)' },
] as const satisfies ReadonlyArray<{ code: LanguageCode; name: string }>;

/**
 * Tests only, never offered in Settings: every string of en bracketed, accented and lengthened (see
 * pseudo.ts), chosen when the browser's language is en-XA, so text that bypasses the catalogs stands out.
 */
export const PSEUDO = 'en-XA';

/** The window's language: a shipped one, or the pseudo-locale. */
export type WindowLanguage = LanguageCode | typeof PSEUDO;

/**
 * The best shipped language for the browser's languages (Electron sets them from the system's).
 * Twin of matchLanguage in electron/shared/languages.ts, which the window may not import at run
 * time; test/unit/i18n/languages.test.ts holds both to one table.
 */
export function matchLanguage(tags: readonly string[]): LanguageCode {
  let traditional = false;
  for (const raw of tags) {
    const [lang, ...rest] = raw.replace(/_/g, '-').toLowerCase().split('-');
    if (lang === 'en' || lang === 'ja' || lang === 'id') return lang;
    if (lang === 'in') return 'id';
    if (lang === 'pt') return 'pt-BR';
    if (lang !== 'zh') continue;
    if (!rest.some((s) => s === 'hant' || s === 'tw' || s === 'hk' || s === 'mo')) return 'zh-CN';
    traditional = true;
  }
  return traditional ? 'zh-CN' : 'en';
}

/** The system's language as the window sees it: the pseudo-locale when a test asks for it, else the best shipped match. */
export function systemLanguage(tags: readonly string[] = navigator.languages): WindowLanguage {
  return tags[0] === PSEUDO ? PSEUDO : matchLanguage(tags);
}
