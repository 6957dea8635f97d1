/**
 * Which shipped language a system's list of languages asks for: a pure function over strings, with no
 * schema library, so the window can run the same copy as main and the CLI.
 */
import type { LanguageCode } from './languages';

/**
 * The best shipped language for a list of BCP 47 tags in order of preference (navigator.languages,
 * or the POSIX locale turned into a tag): the first tag whose language is shipped wins. Chinese is
 * shipped as Simplified only, Portuguese as Brazilian, and the old Java code `in` is Indonesian. A
 * Traditional Chinese tag (zh-TW, zh-HK, zh-Hant) gives way to any later shipped language, but is
 * still shown Simplified Chinese rather than English when nothing else matches.
 * Main, the CLI and the window all run this one copy (the renderer may import this file: see eslint.config.js).
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
