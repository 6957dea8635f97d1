/**
 * The pseudo-locale en-XA, made from en when the window starts in it (tests
 * only): each string becomes `⟦Ŝţŕîñĝ~~~⟧` — accented, about 35 % longer and
 * bracketed — with `{{placeholders}}` and `$t(nesting)` left as they are, so a
 * string that did not come from a catalog is the one without brackets, and a
 * layout too tight for longer languages shows.
 */
const ACCENTS: Record<string, string> = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ', n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Á', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ', N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};
export const PSEUDO_OPEN = '⟦';
export const PSEUDO_CLOSE = '⟧';
/** What is never changed inside a string: interpolation, nesting and an HTML-like tag of <Trans>. */
const KEEP = /(\{\{[^}]*\}\}|\$t\([^)]*\)|<\/?\d+\/?>)/;

/** One catalog string in the pseudo-locale. */
export function pseudoLocalize(text: string): string {
  let letters = 0;
  const body = text
    .split(KEEP)
    .map((part, i) => {
      if (i % 2 === 1) return part;
      letters += part.replace(/\s/g, '').length;
      return [...part].map((ch) => ACCENTS[ch] ?? ch).join('');
    })
    .join('');
  // About 35 % longer, as German or Portuguese often are: padding at the end, inside the brackets.
  return `${PSEUDO_OPEN}${body}${'~'.repeat(Math.ceil(letters * 0.35))}${PSEUDO_CLOSE}`;
}

export type Catalog = { [key: string]: string | Catalog };

/** A whole catalog in the pseudo-locale, key by key. */
export function pseudoCatalog(catalog: Catalog): Catalog {
  return Object.fromEntries(Object.entries(catalog).map(([k, v]) => [k, typeof v === 'string' ? pseudoLocalize(v) : pseudoCatalog(v)]));
}
