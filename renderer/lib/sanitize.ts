/**
 * The one gate between HTML we did not write (Claude's replies, which may
 * carry markup prompt-injected from a memory) and the page. An allow-list,
 * not a block-list: only the elements and attributes Markdown itself produces
 * survive, so a reply cannot load media, submit forms, borrow our CSS classes
 * to draw a fake Approve card, or name an element our code looks up.
 *
 * It also owns the page's only Trusted Types policy (see electron/main/csp.ts):
 * with `require-trusted-types-for 'script'` the browser refuses any string
 * written to innerHTML, so HTML reaches the page only through this module.
 */
import DOMPurify, { type Config } from 'dompurify';

/** The Trusted Types policy named in the CSP's `trusted-types` directive. */
export const TRUSTED_TYPES_POLICY_NAME = 'mnemo-markdown';

/** What Markdown renders to; nothing else is kept (text inside a dropped element is kept as text). */
export const ALLOWED_TAGS = [
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code',
  'em', 'strong', 'del', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'hr', 'br',
] as const;
/** `align` is GFM's table column alignment and `start` an ordered list's first number; no class, id, name or style. */
export const ALLOWED_ATTR = ['href', 'title', 'align', 'start'] as const;
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * True for a link the window may offer to open: an absolute http(s) or mailto
 * URL. Relative links are refused too: they would resolve against the app's own
 * origin, which is never a place a reply should send the user.
 */
export function isSafeHref(href: string): boolean {
  try {
    return LINK_SCHEMES.has(new URL(href).protocol) && /^(?:https?|mailto):/i.test(href);
  } catch {
    return false;
  }
}

type Policy = NonNullable<Config['TRUSTED_TYPES_POLICY']>;
interface TrustedTypesFactory {
  createPolicy(name: string, rules: { createHTML(s: string): string; createScriptURL(s: string): string }): Policy;
}

// Created once; a second createPolicy with the same name is refused by the CSP. The policy only
// signs strings this module passes it: DOMPurify's own parse input and its sanitised output.
let policy: Policy | null | undefined;
function trustedTypesPolicy(): Policy | null {
  if (policy === undefined) {
    const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
    policy = factory
      ? factory.createPolicy(TRUSTED_TYPES_POLICY_NAME, {
          createHTML: (s) => s,
          // DOMPurify never needs a script URL with this configuration; refuse rather than sign one.
          createScriptURL: () => {
            throw new TypeError('Script URLs are not allowed.');
          },
        })
      : null;
  }
  return policy;
}

const purify = DOMPurify(globalThis as unknown as Window & typeof globalThis);
const KEEP_ATTR = new Set<string>(ALLOWED_ATTR);
purify.addHook('afterSanitizeAttributes', (node) => {
  // The allow-list is the whole list. `is` is the exception: an element keeps the `is` it was parsed with
  // even once the attribute is gone, so DOMPurify blanks it (is="") instead, which names no element.
  for (const name of node.getAttributeNames?.() ?? []) if (!KEEP_ATTR.has(name) && name !== 'is') node.removeAttribute(name);
  // DOMPurify's URI check is a prefix test; parse as the browser would, and drop what is not absolute http(s)/mailto.
  if (node.nodeName === 'A' && node.hasAttribute('href') && !isSafeHref(node.getAttribute('href') ?? '')) node.removeAttribute('href');
});

function config(): Config {
  return {
    ALLOWED_TAGS: [...ALLOWED_TAGS],
    ALLOWED_ATTR: [...ALLOWED_ATTR],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
    KEEP_CONTENT: true,
    RETURN_TRUSTED_TYPE: false,
    TRUSTED_TYPES_POLICY: trustedTypesPolicy() ?? null,
  };
}

/** Untrusted HTML reduced to the allow-list, as a string. */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, config());
}

/**
 * Signs HTML for an innerHTML sink. Only for strings built from
 * `sanitizeHtml` output plus markup this app generated itself.
 */
export function toTrustedHtml(html: string): string {
  const p = trustedTypesPolicy();
  // A TrustedHTML object stringifies to its HTML; typed as string so the DOM typings accept it.
  return p ? (p.createHTML(html) as unknown as string) : html;
}
