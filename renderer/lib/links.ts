/**
 * The one place a click on a link in rendered content is handled. The window
 * never navigates: it asks main (`openLink`), which opens only the app's own
 * links directly and shows any other http(s) address in full for the user to
 * confirm (electron/main/links.ts).
 */
import { call } from './api';
import { isSafeHref } from './sanitize';

/** Asks main to open `href` outside the app; anything but absolute http(s)/mailto is ignored here already. */
export function openLink(href: string): void {
  if (!isSafeHref(href)) return;
  void call('openLink', { href }).catch(() => undefined);
}
