/**
 * The window's languages: the five shipped, each named in its own language
 * for the Language setting, and the pseudo-locale the tests use.
 */
import { matchLanguage } from '../../../electron/shared/language-match';
import type { LanguageCode } from '../../../electron/shared/languages';

export type { LanguageCode, LanguageChoice } from '../../../electron/shared/languages';
export { matchLanguage };

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

/** The system's language as the window sees it: the pseudo-locale when a test asks for it, else the best shipped match. */
export function systemLanguage(tags: readonly string[] = navigator.languages): WindowLanguage {
  return tags[0] === PSEUDO ? PSEUDO : matchLanguage(tags);
}
