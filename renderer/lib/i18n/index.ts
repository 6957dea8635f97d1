/**
 * The window's language: i18next with the catalogs of electron/shared/locales.
 * At start only the active language's catalogs are fetched (one chunk per
 * language), plus en when the active one is another, as the fallback for keys
 * a translation lacks. The choice comes from the device preference main keeps
 * (so it holds before unlock), else the system's language; changing it in
 * Settings switches the window live.
 */
import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { LanguageChoice, LanguageCode } from '../../../electron/shared/languages';
import type { Keyed, MessageParams } from '../../../electron/shared/messages';
import { PSEUDO, systemLanguage, type WindowLanguage } from './languages';
import { pseudoCatalog, type Catalog } from './pseudo';

type Bundle = Record<string, Catalog>;
const LOADERS: Record<LanguageCode, () => Promise<{ default: Bundle }>> = {
  en: () => import('./catalogs/en'),
  'zh-CN': () => import('./catalogs/zh-CN'),
  ja: () => import('./catalogs/ja'),
  id: () => import('./catalogs/id'),
  'pt-BR': () => import('./catalogs/pt-BR'),
};

/** The window's one i18next instance; components reach it through react-i18next's useTranslation(). */
export const i18n: I18n = i18next.createInstance();

const NS_OF = (file: string) => /([^/]+)\.json$/.exec(file)![1]!;

const loaded = new Map<WindowLanguage, Promise<void>>();

/** Loads `lang`'s catalogs into i18n once (en's for the pseudo-locale, which is made from them). */
function load(lang: WindowLanguage): Promise<void> {
  let done = loaded.get(lang);
  if (!done) {
    done = LOADERS[lang === PSEUDO ? 'en' : lang]().then(({ default: bundle }) => {
      for (const [file, catalog] of Object.entries(bundle)) i18n.addResourceBundle(lang, NS_OF(file), lang === PSEUDO ? pseudoCatalog(catalog) : catalog, true, true);
    });
    // A failed fetch may be tried again by the next switch.
    done.catch(() => loaded.delete(lang));
    loaded.set(lang, done);
  }
  return done;
}

/** The language a choice means on this system. */
export function resolveLanguage(choice: LanguageChoice, systemTags?: readonly string[]): WindowLanguage {
  return choice === 'system' ? systemLanguage(systemTags) : choice;
}

/** `<html lang>` follows the language (so CJK text gets the right glyphs); the page chrome is left to right in all five. */
function markDocument(lang: string): void {
  if (typeof document === 'undefined') return; // unit tests in plain Node
  document.documentElement.lang = lang;
  document.documentElement.dir = 'ltr';
}

/** Switches the window to `lang`, loading its catalogs (and en's, the fallback) first; live, without a restart. */
export async function switchLanguage(lang: WindowLanguage): Promise<void> {
  await Promise.all([load(lang), lang === 'en' ? undefined : load('en')]);
  await i18n.changeLanguage(lang);
}

/**
 * Sets up i18n before the first render: the stored choice (asked of main through `getChoice`) and
 * the system language's catalogs are fetched side by side, the latter being the likely answer.
 */
export async function startI18n(getChoice: () => Promise<LanguageChoice>, systemTags?: readonly string[]): Promise<void> {
  i18n.on('languageChanged', markDocument);
  // Resources come only from the loaders above: set up empty, synchronously, then filled.
  await i18n.use(initReactI18next).init({
    resources: {},
    fallbackLng: 'en',
    ns: ['common'],
    defaultNS: 'common',
    // React escapes what it renders; i18next escaping too would show `&amp;` in the window.
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
    returnNull: false,
    initAsync: false,
  });
  const guess = systemLanguage(systemTags);
  const [choice] = await Promise.all([getChoice().catch((): LanguageChoice => 'system'), load(guess).catch(() => undefined)]);
  await switchLanguage(resolveLanguage(choice, systemTags));
}

/**
 * A key main sent with an error (`errors:…`) said in the window's language, or undefined when the
 * catalogs do not know it. The only place a key is not a literal: main's keys are literals in main.
 * A parameter that is itself a message (key and parameters) is said first, in the same language, and
 * a list of them is joined by the language's `errors:listSeparator` (as electron/core/i18n/message.ts does).
 */
export function translateKey(key: string, params?: MessageParams): string | undefined {
  const t = i18n.t.bind(i18n) as unknown as (key: string, params?: Record<string, string | number>) => string;
  const say = (k: Keyed): string | undefined => {
    // A plural key exists only in its forms (`x_one`, `x_other`): asked with its count, i18next looks for those.
    if (!i18n.exists(k.key, typeof k.params?.count === 'number' ? { count: k.params.count } : {})) return undefined;
    const values: Record<string, string | number> = {};
    for (const [name, v] of Object.entries(k.params ?? {})) {
      if (typeof v !== 'object') values[name] = v;
      else {
        const parts = (Array.isArray(v) ? v : [v]).map(say);
        if (parts.some((p) => p === undefined)) return undefined;
        values[name] = parts.join(t('errors:listSeparator'));
      }
    }
    return t(k.key, values);
  };
  return say({ key, ...(params ? { params } : {}) });
}
