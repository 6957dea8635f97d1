/**
 * i18next in plain Node, for main's messages and the CLI: the same catalogs
 * (electron/shared/locales) and the same rules (plurals through
 * Intl.PluralRules, `{{name}}` interpolation) as the window.
 */
import { createInstance } from 'i18next';

/** A catalog as stored: nested objects of strings. */
export type Catalog = { [key: string]: string | Catalog };
/** Namespace → catalog, for one language. */
export type Catalogs = Record<string, Catalog>;

/** The catalog keys of `T` as used in code: `a.b` for `{ a: { b } }`, and `a` for the plural forms `a_one`, `a_other`. */
export type KeyOf<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K extends `${infer B}_${'zero' | 'one' | 'two' | 'few' | 'many' | 'other'}` ? B : K}` : KeyOf<T[K], `${P}${K}.`>;
}[keyof T & string];

/**
 * Looks a key (`ns:a.b`) up and fills in `params`. Plain strings here: core's keys are checked by their
 * own types (ErrorKey, the CLI's keys), not by the window's (renderer/lib/i18n/types.d.ts).
 */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/**
 * A `t` for `lng` with English as the fallback for keys its catalogs lack. Set up synchronously
 * (every catalog is given), so it can be used at once.
 */
export function translator(lng: string, catalogs: Partial<Record<string, Catalogs>>): Translate {
  const i18n = createInstance();
  const resources = Object.fromEntries(Object.entries(catalogs).filter((e): e is [string, Catalogs] => e[1] !== undefined));
  void i18n.init({
    lng,
    fallbackLng: 'en',
    resources,
    ns: Object.keys(resources.en ?? {}),
    // Terminal and log text is plain text, not HTML: nothing to escape.
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return i18n.t.bind(i18n) as unknown as Translate;
}
