/**
 * The renderer's Content Security Policy, sent with every page the app serves
 * (the app:// protocol in Electron, the local server in tests). No inline or
 * remote script, no network from the page: everything goes through IPC.
 * Styles may be inline because CodeMirror and React set them at run time.
 * Trusted Types: the browser refuses a plain string at any HTML or script sink
 * (innerHTML, DOMParser…), so HTML reaches the page only through the one policy
 * renderer/lib/sanitize.ts creates, after the allow-list sanitiser.
 */
/** The only Trusted Types policy the page may create (renderer/lib/sanitize.ts). */
export const TRUSTED_TYPES_POLICY = 'mnemo-markdown';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'none'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  `trusted-types ${TRUSTED_TYPES_POLICY}`,
].join('; ');

/** Links the renderer may open in the OS browser; anything else is dropped. */
const EXTERNAL_ALLOW = [/^https:\/\/(console|docs|www|support)\.anthropic\.com(\/|$)/, /^https:\/\/github\.com\//];

/** True for an https URL on the allow-list. */
export function isAllowedExternal(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && !u.username && !u.password && EXTERNAL_ALLOW.some((re) => re.test(u.href));
  } catch {
    return false;
  }
}

/** Content types for the files the renderer build emits. */
export const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};
