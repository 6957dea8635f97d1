/**
 * The main window with the secure preferences of DESIGN.md §7: isolated,
 * sandboxed, no Node in the page, no navigation away from the app, no new
 * windows; a link the page tries to open or navigate to goes through the same
 * main-process rules as the `openLink` call (links.ts).
 */
import { app, BrowserWindow, dialog, session, shell, type IpcMainInvokeEvent, type WebContents, type WebPreferences } from 'electron';
import type { Translate } from '../core/i18n/translator';
import { consentDialog, type ConsentQuestion } from './handlers/consent';
import { dialogTranslator } from './language';
import { confirmLinkDialog, openLink, type LinkPorts } from './links';
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
    webPreferences: { ...SECURE_PREFERENCES, preload: opts.preload, devTools: !app.isPackaged },
  });
  if (opts.bounds.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  const wc = win.webContents;
  wc.on('will-redirect', (e) => e.preventDefault());
  guardLinks(wc);
  return win;
}

/** The system's languages as Electron reports them (getLocale() only answers once the app is ready). */
function systemLanguages(): readonly string[] {
  const preferred = app.getPreferredSystemLanguages?.() ?? [];
  return preferred.length ? preferred : [app.getLocale()];
}

/** The `t` for main's next dialog: the Language setting, else the system's language (language.ts). */
export function dialogText(): Translate {
  return dialogTranslator(app.getPath('userData'), systemLanguages);
}

/** Links confirmed in a dialog attached to the window that asked (the full URL, Open / Cancel, Cancel default), then the OS browser. */
export function electronLinkPorts(parent: () => BrowserWindow | undefined): LinkPorts {
  return {
    confirm: async (url) => {
      const w = parent();
      const options = confirmLinkDialog(url, dialogText());
      const r = w && !w.isDestroyed() ? await dialog.showMessageBox(w, options) : await dialog.showMessageBox(options);
      return r.response === 0;
    },
    openExternal: (url) => shell.openExternal(url),
  };
}

/**
 * Main's own question before a change the window asked for weakens a protection or replaces the API key
 * (handlers/consent.ts): attached to the window, Cancel the default, so Enter alone never allows it.
 */
export function electronConsentPort(parent: () => BrowserWindow | undefined): (q: ConsentQuestion) => Promise<boolean> {
  return async (q) => {
    const w = parent();
    const t = dialogText();
    const said = q.changes ? consentDialog(t, q.changes) : q;
    const options = { type: 'warning' as const, title: 'Mnemo', message: said.message, detail: said.detail, buttons: [t('errors:dialog.consent.allow'), t('errors:dialog.cancel')], defaultId: 1, cancelId: 1, noLink: true };
    const r = w && !w.isDestroyed() ? await dialog.showMessageBox(w, options) : await dialog.showMessageBox(options);
    return r.response === 0;
  };
}

/**
 * No navigation, no webviews, no new windows: a link the page opens or follows is handed to openLink's rules instead.
 * No UDP from WebRTC either: ICE checks would carry whatever a page puts in its SDP to any host it names, where neither
 * the CSP nor the request filter looks (the preload also removes WebRTC from the page: preload/no-webrtc.ts).
 */
function guardLinks(wc: WebContents): void {
  wc.setWebRTCIPHandlingPolicy('disable_non_proxied_udp');
  const ports = electronLinkPorts(() => BrowserWindow.fromWebContents(wc) ?? undefined);
  wc.on('will-navigate', (e) => {
    e.preventDefault();
    void openLink(e.url, ports).catch(() => undefined);
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    void openLink(url, ports).catch(() => undefined);
    return { action: 'deny' };
  });
}

/**
 * Denies every permission (camera, notifications, …) except writing to the clipboard for copy
 * buttons, and cancels any web request from a page: the renderer talks to main over IPC only,
 * so a request to the network can only be injected content trying to send something out.
 */
export function lockDownSession(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
  session.defaultSession.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*', 'ftp://*/*'] }, (_details, callback) => callback({ cancel: true }));
}

/** The same navigation rules for every web contents, including any the app did not mean to create. */
export function guardAllWebContents(): void {
  app.on('web-contents-created', (_e, wc) => guardLinks(wc));
}

/** True only for our window's main frame showing our own origin. */
export function isOurMainFrame(win: BrowserWindow | undefined, event: IpcMainInvokeEvent): boolean {
  if (!win || win.isDestroyed()) return false;
  const frame = event.senderFrame;
  return event.sender === win.webContents && frame !== null && frame === win.webContents.mainFrame && frame.url.startsWith(`${APP_ORIGIN}/`);
}
