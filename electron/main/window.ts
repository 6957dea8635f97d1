/**
 * The main window with the secure preferences of DESIGN.md §7: isolated,
 * sandboxed, no Node in the page, no navigation away from the app, no new
 * windows, external links only through the allow-list to the OS browser.
 */
import { BrowserWindow, session, shell, type IpcMainInvokeEvent, type WebPreferences } from 'electron';
import { isAllowedExternal } from './csp';
import { APP_ORIGIN } from './protocol';
import type { Bounds } from './window-state';

export const SECURE_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: true,
} as const satisfies WebPreferences;

export function createMainWindow(opts: { preload: string; bounds: Bounds; icon?: string }): BrowserWindow {
  const win = new BrowserWindow({
    ...opts.bounds,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'Mnemo',
    ...(opts.icon ? { icon: opts.icon } : {}),
    webPreferences: { ...SECURE_PREFERENCES, preload: opts.preload },
  });
  if (opts.bounds.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  const wc = win.webContents;
  wc.on('will-navigate', (e) => e.preventDefault());
  wc.on('will-redirect', (e) => e.preventDefault());
  wc.on('will-attach-webview', (e) => e.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternal(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  return win;
}

/** Denies every permission (camera, notifications, …) except writing to the clipboard for copy buttons. */
export function lockDownSession(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
}

/** True only for our window's main frame showing our own origin. */
export function isOurMainFrame(win: BrowserWindow | undefined, event: IpcMainInvokeEvent): boolean {
  if (!win || win.isDestroyed()) return false;
  const frame = event.senderFrame;
  return event.sender === win.webContents && frame !== null && frame === win.webContents.mainFrame && frame.url.startsWith(`${APP_ORIGIN}/`);
}
