/**
 * Finds text on the screen that did not come from a catalog. Run the app in the pseudo-locale
 * (`locale: 'en-XA'`): every catalog string is then bracketed `⟦…⟧`, so any visible string outside
 * brackets bypassed the catalogs.
 *
 * Looked at: visible text nodes, `aria-label`, `aria-description`, `placeholder`, `title`, `alt`,
 * `<option>` text and the document's title. Left out:
 * - text the user or Claude wrote, marked in the DOM with `dir="auto"`, `<bdi>` or `data-user-text`
 *   (the same marks isolate it for right-to-left scripts: use them wherever such text is shown);
 * - what is not language at all, marked `translate="no"` (a recovery key, a model id, a language's
 *   own name in the Language setting);
 * - CodeMirror's editor content (the memory being edited);
 * - whitespace, punctuation, symbols and digits alone;
 * - the few words in ALLOWED, kept here in one place.
 * `within` limits the walk to one part of the page, `skip` leaves parts out: both only for screens
 * whose other areas are not converted yet (issue 21's later phases remove them).
 */
import type { Page } from '@playwright/test';

/** Words that are the same in every language: the brand, Claude's name, key names. */
export const ALLOWED = ['Mnemo', 'Claude', 'Anthropic', 'Ctrl', 'Shift', 'Alt', 'Enter', 'Esc', 'Tab', '⌘', '⌥', '⇧'];

/** Every visible string on the page that is not from a catalog, as `where: text`. */
export async function untranslated(page: Page, opts: { within?: string; skip?: string[] } = {}): Promise<string[]> {
  return page.evaluate(([allowed, within, skip]) => {
    const out: string[] = [];
    const root = within ? document.querySelector(within) : document.body;
    if (!root) return [`nothing matches ${within}`];
    const skipped = ['[dir="auto"]', 'bdi', '[data-user-text]', '[translate="no"]', '.cm-content', '.cm-gutters', ...skip].join(', ');
    const isUserText = (el: Element | null) => !!el?.closest(skipped);
    // Shown, or read by screen readers though clipped from sight (.sr-only): both count. aria-hidden text is still seen.
    const visible = (el: Element) => el.checkVisibility({ visibilityProperty: true });
    /** What is left of `text` once catalog strings (⟦…⟧, nested too), allowed words and non-letters are taken out. */
    const leftover = (text: string, depth: { n: number }) => {
      let outside = '';
      for (const ch of text) {
        if (ch === '⟦') depth.n++;
        else if (ch === '⟧') depth.n = Math.max(0, depth.n - 1);
        else if (depth.n === 0) outside += ch;
      }
      for (const word of allowed) outside = outside.split(word).join(' ');
      return /\p{L}/u.test(outside) ? outside.trim() : '';
    };
    const describe = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : ''}`;

    // Text nodes in document order; a catalog string split by inline elements (<Trans>) spans
    // several nodes, so the bracket depth carries over within one block.
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let block: Element | null = null;
    const depth = { n: 0 };
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName) || parent.closest('select')) continue;
      const blockOf = parent.closest('p, div, li, h1, h2, h3, h4, h5, h6, label, button, td, th, legend, summary, dt, dd, output, section, form, dialog') ?? document.body;
      if (blockOf !== block) {
        block = blockOf;
        depth.n = 0;
      }
      if (isUserText(parent) || !visible(parent)) continue;
      const left = leftover(node.textContent ?? '', depth);
      if (left) out.push(`${describe(parent)} text: ${left}`);
    }
    for (const el of root.querySelectorAll('*')) {
      if (isUserText(el) || !visible(el)) continue;
      for (const attr of ['aria-label', 'aria-description', 'placeholder', 'title', 'alt']) {
        const value = el.getAttribute(attr);
        const left = value ? leftover(value, { n: 0 }) : '';
        if (left) out.push(`${describe(el)} ${attr}: ${left}`);
      }
      if (el instanceof HTMLOptionElement) {
        const left = leftover(el.text, { n: 0 });
        if (left) out.push(`${describe(el.closest('select') ?? el)} option: ${left}`);
      }
    }
    const title = within ? '' : leftover(document.title, { n: 0 });
    if (title) out.push(`document title: ${title}`);
    return out;
  }, [ALLOWED, opts.within, opts.skip ?? []] as const);
}
