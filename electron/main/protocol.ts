/** The app:// protocol that serves the built renderer (never file://), each response carrying the CSP. */
import { protocol } from 'electron';
import { CONTENT_SECURITY_POLICY } from './csp';
import { readStatic } from './static-files';

export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://mnemo`;

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === 'mnemo' && request.method === 'GET' ? await readStatic(rendererDir, url.pathname) : undefined;
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(new Uint8Array(file.body), {
      headers: { 'content-type': file.contentType, 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' },
    });
  });
}
