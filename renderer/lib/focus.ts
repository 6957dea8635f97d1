/**
 * Moves focus to the first element matching `selector` once it is on screen:
 * after a screen change the element may render a few frames later (a file
 * still loading, a section just shown). Gives up quietly after about two
 * seconds, leaving focus where it was rather than on the page body. `heading`:
 * the element is a heading (not focusable by itself), made focusable by script only.
 */
export function focusWhenReady(selector: string, frames = 120, heading = false): void {
  const el = document.querySelector<HTMLElement>(selector);
  if (el && el.offsetParent !== null) {
    if (heading && !el.hasAttribute('tabindex')) el.tabIndex = -1;
    el.focus();
    return;
  }
  if (frames > 0) requestAnimationFrame(() => focusWhenReady(selector, frames - 1, heading));
}
