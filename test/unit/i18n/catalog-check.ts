/**
 * The catalog check (issue 21), run by catalogs.test.ts in `npm test`: the
 * catalogs under electron/shared/locales agree with en, the source, and every
 * key of en is used by the code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LANGUAGE_CODES, NAMESPACES } from '../../../electron/shared/languages';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const LOCALES = path.join(ROOT, 'electron/shared/locales');

/**
 * Languages whose translation is not finished: their missing keys (shown in English meanwhile) are
 * allowed. Translators take their language off this list when they finish it; nothing else may
 * excuse a catalog from the check.
 */
export const INCOMPLETE_LANGUAGES: readonly string[] = [];

type Catalog = { [key: string]: string | Catalog };
/** Namespace → catalog. */
export type Catalogs = Record<string, Catalog>;

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** `{ a: { b: 'x' } }` → `a.b` → 'x'. */
export function flatten(catalog: Catalog, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(catalog)) {
    if (typeof v === 'string') out.set(prefix + k, v);
    else for (const [kk, vv] of flatten(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

/** The interpolations (`{{x}}`), nestings (`$t(…)`) and <Trans> tags (`<0>`) of a string, sorted. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([^}]+?)\s*\}\}|\$t\([^)]*\)|<\/?\d+\/?>/g)].map((m) => (m[1] !== undefined ? `{{${m[1].split(',')[0]!.trim()}}}` : m[0])).sort();
}

/** Every language's catalogs as stored. */
export function readCatalogs(): Record<string, Catalogs> {
  return Object.fromEntries(
    LANGUAGE_CODES.map((lng) => [lng, Object.fromEntries(NAMESPACES.map((ns) => [ns, JSON.parse(fs.readFileSync(path.join(LOCALES, lng, `${ns}.json`), 'utf8')) as Catalog]))]),
  );
}

/** Keys by their base name (plural forms gathered under it): `ns:key` → form suffix ('' when not a plural) → text. */
function byBase(catalogs: Catalogs): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [ns, catalog] of Object.entries(catalogs)) {
    for (const [key, text] of flatten(catalog)) {
      const form = PLURAL.exec(key)?.[1] ?? '';
      const base = `${ns}:${form ? key.slice(0, -form.length - 1) : key}`;
      if (!out.has(base)) out.set(base, new Map());
      out.get(base)!.set(form, text);
    }
  }
  return out;
}

/**
 * What is wrong with `lng`'s catalogs against en's: keys missing (unless `incomplete`), keys en lacks,
 * placeholders that differ, and plural forms missing for the categories Intl.PluralRules picks for
 * whole numbers in the language (en: `_one`, `_other`; pt-BR: `_one`, `_many`, `_other`; zh-CN, ja and id: `_other`).
 */
export function checkLanguage(lng: string, catalogs: Catalogs, en: Catalogs, incomplete = false): string[] {
  const problems: string[] = [];
  const source = byBase(en);
  const target = byBase(catalogs);
  const rules = new Intl.PluralRules(lng);
  const categories = rules.resolvedOptions().pluralCategories as string[];
  // The forms a whole-number count can pick (`t(key, { count })`), as i18next picks them: Portuguese's "many" is for a million and up.
  const needed = new Set([...Array(1001).keys(), 1e4, 1e5, 1e6, 1e7].map((n) => rules.select(n)));
  for (const [base, forms] of target) {
    const from = source.get(base);
    if (!from) {
      problems.push(`${lng} ${base}: not in en`);
      continue;
    }
    const plural = from.has('other');
    if (plural !== forms.has('other') || (!plural && !forms.has(''))) problems.push(`${lng} ${base}: ${plural ? 'is a plural in en' : 'is not a plural in en'}`);
    if (plural) {
      for (const c of needed) if (!forms.has(c)) problems.push(`${lng} ${base}: plural form _${c} missing`);
      for (const f of forms.keys()) if (!categories.includes(f) && f !== 'zero') problems.push(`${lng} ${base}: plural form _${f} is not one of ${lng}'s (${categories.join(', ')})`);
    }
    const want = placeholders(from.get('other') ?? from.get('') ?? '').filter((p) => p !== '{{count}}');
    for (const [form, text] of forms) {
      const got = placeholders(text).filter((p) => p !== '{{count}}');
      if (got.join(' ') !== want.join(' ')) problems.push(`${lng} ${base}${form ? `_${form}` : ''}: placeholders ${got.join(' ') || '(none)'} differ from en's ${want.join(' ') || '(none)'}`);
    }
  }
  if (!incomplete) for (const base of source.keys()) if (!target.has(base)) problems.push(`${lng} ${base}: missing`);
  return problems;
}

/** Source files whose string literals may be catalog keys: the window's and main's, core's and the CLI's code. */
export function codeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(path.join(ROOT, 'renderer'));
  walk(path.join(ROOT, 'electron'));
  return out;
}

/**
 * The keys of en no code uses. A key counts as used when the code holds it as a whole string
 * literal: `'ns:key'`, or `'key'` (in the file's namespace: `useTranslation('ns')`, `t`'s default
 * `common`, or `i18nKey="key"`). So keys must be literals in code; where one is picked at run time,
 * the choices are listed as literals in a typed const map (see STRENGTH_LEVELS in renderer/lib/strength.ts).
 */
export function unusedKeys(en: Catalogs, sources: readonly string[] = codeFiles().map((f) => fs.readFileSync(f, 'utf8'))): string[] {
  const literals = new Set<string>();
  for (const text of sources) for (const m of text.matchAll(/(['"`])([\w.:-]+)\1/g)) literals.add(m[2]!);
  return [...byBase(en).keys()].filter((base) => !literals.has(base) && !literals.has(base.slice(base.indexOf(':') + 1)));
}
