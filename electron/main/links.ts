/**
 * Opening links outside the app. The window is untrusted, so main decides:
 * the exact pages the app itself links to open at once; any other http(s)
 * link opens only after the user has read its full address in a main-process
 * dialog and chosen Open (the dialog names the host on its own line, so a
 * look-alike such as console.anthropic.com.evil.example shows where it goes);
 * userinfo and every other scheme never open. A link can carry
 * memory text in its address, which is why nothing opens on one click.
 */
import { englishErrors } from '../core/i18n/message';
import type { Translate } from '../core/i18n/translator';

/** The pages the app's own screens link to, opened without asking. Exact matches only. */
export const DIRECT_LINKS: ReadonlySet<string> = new Set(['https://console.anthropic.com/settings/keys']);

export type LinkDecision = { kind: 'open'; url: string } | { kind: 'confirm'; url: string } | { kind: 'refuse' };

/** What to do with `href`: the parsed, re-serialised URL to open directly or after confirmation, or refuse. */
export function decideLink(href: string): LinkDecision {
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return { kind: 'refuse' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { kind: 'refuse' };
  // `https://console.anthropic.com@evil.example/` reads as Anthropic's but goes to evil.example; no page the app shows needs userinfo.
  if (u.username || u.password) return { kind: 'refuse' };
  const url = u.href;
  if (DIRECT_LINKS.has(url)) return { kind: 'open', url };
  return { kind: 'confirm', url };
}

export interface LinkPorts {
  /** Shows the full URL and resolves true only if the user chose Open (Cancel is the default). */
  confirm(url: string): Promise<boolean>;
  /** Hands the URL to the OS browser. */
  openExternal(url: string): Promise<void>;
}

/** Opens `href` by the rules above; resolves whether it was handed to the browser. */
export async function openLink(href: string, ports: LinkPorts): Promise<boolean> {
  const d = decideLink(href);
  if (d.kind === 'refuse') return false;
  if (d.kind === 'confirm' && !(await ports.confirm(d.url))) return false;
  await ports.openExternal(d.url);
  return true;
}

/**
 * The dialog options for the confirmation: the site, the full address, Open / Cancel, Cancel the default and
 * the Esc answer; in the language of `t` (main's: language.ts).
 */
export function confirmLinkDialog(url: string, t: Translate = englishErrors()): { type: 'question'; buttons: string[]; defaultId: number; cancelId: number; title: string; message: string; detail: string; noLink: boolean } {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // decideLink only passes parsed URLs; an unparsable one still shows in full below.
  }
  return {
    type: 'question',
    buttons: [t('errors:dialog.link.open'), t('errors:dialog.cancel')],
    defaultId: 1,
    cancelId: 1,
    title: t('errors:dialog.link.title'),
    message: host ? t('errors:dialog.link.message', { host }) : t('errors:dialog.link.messageNoHost'),
    detail: t('errors:dialog.link.detail', { url }),
    noLink: true,
  };
}
