/**
 * The languages Mnemo ships and the device preference that picks one. Data
 * and schemas only: the window and the CLI each have their own loader (the
 * renderer may only `import type` from here; see renderer/lib/i18n/).
 */
import { z } from 'zod';

/** Every shipped language, en first (the source every other catalog is translated from, and the fallback). */
export const LANGUAGE_CODES = ['en', 'zh-CN', 'ja', 'id', 'pt-BR'] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];
export const LanguageCode = z.enum(LANGUAGE_CODES);

/** The namespaces of the catalogs, one file each per language: electron/shared/locales/<language>/<namespace>.json. */
export const NAMESPACES = ['common', 'unlock', 'chat', 'memories', 'settings', 'palette', 'errors', 'cli'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** The Language setting: follow the system's language, or one of the shipped ones. */
export const LanguageChoice = z.union([z.literal('system'), LanguageCode]);
export type LanguageChoice = z.infer<typeof LanguageChoice>;

/** What this device remembers outside the vault (nothing secret): kept by main beside window-state.json. */
export const DevicePrefs = z.object({ language: LanguageChoice });
export type DevicePrefs = z.infer<typeof DevicePrefs>;

/**
 * The best shipped language for a list of BCP 47 tags in order of preference (navigator.languages,
 * or the POSIX locale turned into a tag): the first tag whose language is shipped wins. Chinese is
 * shipped as Simplified only, Portuguese as Brazilian, and the old Java code `in` is Indonesian. A
 * Traditional Chinese tag (zh-TW, zh-HK, zh-Hant) gives way to any later shipped language, but is
 * still shown Simplified Chinese rather than English when nothing else matches.
 * The renderer has its twin in renderer/lib/i18n/languages.ts (it may not import this at run time);
 * test/unit/i18n/languages.test.ts holds both to one table.
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
