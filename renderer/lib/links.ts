/**
 * The one place a click on a link in rendered content is handled. The window
 * never navigates: main decides whether the link opens in the OS browser
 * (its allow-list), through the `openLink` call when the contract has it, else
 * through window.open, which main's window-open handler checks and denies.
 */
import { isSafeHref } from './sanitize';

type OpenLink = (args: { href: string }) => Promise<unknown>;

/** Asks main to open `href` outside the app; anything but absolute http(s)/mailto is ignored. */
export function openLink(href: string): void {
  if (!isSafeHref(href)) return;
  const viaMain = (window.mnemo as unknown as { openLink?: OpenLink }).openLink;
  if (viaMain) void viaMain({ href });
  else window.open(href, '_blank', 'noopener');
}
