/** Electron entry: wiring only. The behaviour lives in handlers/ (plain Node) and the modules imported here. */
import path from 'node:path';
import { app, clipboard, ClipboardItem, dialog, powerMonitor, type BrowserWindow } from 'electron';
import { defaultStateDir, requestedVaultDir } from '../core/app-paths';
import { loadSettings } from '../core/chat/settings-store';
import { EVENTS } from '../shared/ipc';
import { startAutoLock } from './autolock';
import { SecretClipboard, type ClipboardPort } from './clipboard';
import { vaultSwitch } from './device-prefs';
import { enforceStartupGuards } from './guards';
import { createHandlers, dispatch } from './handlers';
import { registerIpc } from './ipc';
import { APP_ORIGIN, registerAppScheme, serveRenderer } from './protocol';
import { createMainWindow, dialogText, electronConsentPort, electronLinkPorts, guardAllWebContents, isOurMainFrame, lockDownSession } from './window';
import { loadBounds, saveBounds } from './window-state';

const here = import.meta.dirname;
const PRELOAD = path.join(here, '../preload/index.cjs');
const RENDERER = path.join(here, '../renderer');

registerAppScheme();
guardAllWebContents();
let win: BrowserWindow | undefined;

/** Electron's clipboard, writing the text and the concealing formats in one atomic write. */
const electronClipboard: ClipboardPort = {
  write: (text, markers) =>
    clipboard.write([
      new ClipboardItem({
        'text/plain': text,
        ...Object.fromEntries(markers.map((m) => [`electron application/osclipboard;format="${m.format}"`, new Blob([new Uint8Array(m.bytes)])])),
      }),
    ]),
  readText: () => clipboard.readText(),
  clear: async () => clipboard.clear(),
};

/** Main's own folder picker, titled with `title`; undefined when cancelled. */
async function pickFolder(title: 'errors:dialog.pick.backup' | 'errors:dialog.pick.export' | 'errors:dialog.pick.vault'): Promise<string | undefined> {
  if (!win) return undefined;
  const r = await dialog.showOpenDialog(win, { title: dialogText()(title), properties: ['openDirectory', 'createDirectory'] });
  return r.canceled ? undefined : r.filePaths[0];
}

const guardsPassed = enforceStartupGuards({
  app,
  argv: process.argv,
  showError: (title, content) => dialog.showErrorBox(title, content),
  t: dialogText(),
  focusExisting: () => {
    if (win?.isMinimized()) win.restore();
    win?.focus();
  },
});
if (guardsPassed) {
  const userDataDir = app.getPath('userData');
  // `--vault DIR`, else MNEMO_VAULT, as the CLI reads them; without either, the folder chosen last on this computer.
  const vaultDir = requestedVaultDir(vaultSwitch(process.argv, process.cwd()), process.env);
  const { handlers, session } = createHandlers({
    userDataDir,
    stateDir: defaultStateDir(),
    ...(vaultDir ? { vaultDir } : {}),
    env: process.env,
    clipboard: new SecretClipboard(electronClipboard, process.platform),
    links: electronLinkPorts(() => win),
    confirmChange: electronConsentPort(() => win),
    // Other apps reach the memory through the app while it is unlocked: served on unlock, stopped before each lock and at quit.
    channel: {},
    emit: (event, payload) => {
      if (win && !win.isDestroyed()) win.webContents.send(EVENTS[event].channel, payload);
    },
    pickDirectory: (purpose) => pickFolder(purpose === 'backup' ? 'errors:dialog.pick.backup' : 'errors:dialog.pick.export'),
    pickVaultFolder: () => pickFolder('errors:dialog.pick.vault'),
    pickFiles: async () => {
      if (!win) return undefined;
      const t = dialogText();
      const r = await dialog.showOpenDialog(win, {
        title: t('errors:dialog.pick.attach'),
        properties: ['openFile', 'multiSelections'],
        filters: [
          { name: t('errors:dialog.pick.attachable'), extensions: ['png', 'jpg', 'jpeg', 'gif', 'webp', 'pdf', 'txt', 'md', 'csv', 'json'] },
          { name: t('errors:dialog.pick.allFiles'), extensions: ['*'] },
        ],
      });
      return r.canceled ? undefined : r.filePaths;
    },
    pickSaveFile: async (suggestedName) => {
      if (!win) return undefined;
      const r = await dialog.showSaveDialog(win, { title: dialogText()('errors:dialog.pick.saveConversation'), defaultPath: suggestedName, filters: [{ name: 'Markdown', extensions: ['md'] }] });
      return r.canceled ? undefined : r.filePath;
    },
  });
  registerIpc((name, args) => dispatch(handlers, name, args), (event) => isOurMainFrame(win, event));

  void app.whenReady().then(() => {
    lockDownSession();
    serveRenderer(RENDERER);
    win = createMainWindow({ preload: PRELOAD, bounds: loadBounds(userDataDir) });
    win.on('close', () => {
      if (win) saveBounds(userDataDir, { ...win.getNormalBounds(), maximized: win.isMaximized() });
    });
    void win.loadURL(`${APP_ORIGIN}/index.html`);

    const lockNow = () => session.lock('system');
    powerMonitor.on('lock-screen', lockNow);
    powerMonitor.on('suspend', lockNow);
    startAutoLock({
      idleSeconds: () => powerMonitor.getSystemIdleTime(),
      minutes: async () => (session.isUnlocked() ? (await loadSettings(session.unlocked())).autoLockMinutes : undefined),
      lock: () => session.lock('idle'),
    });
  });

  app.on('window-all-closed', () => app.quit());
  // Zero the keys and release the vault's process lock before the process goes away.
  let closed = false;
  app.on('will-quit', (e) => {
    if (closed) return;
    e.preventDefault();
    void session.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
}
