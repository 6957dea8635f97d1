/**
 * A recording stand-in for the `electron` module, so the built main bundle and
 * preload can be loaded under plain Node and their wiring inspected.
 */
type Listener = (...args: unknown[]) => unknown;

export interface Recording {
  ipcHandlers: Map<string, Listener>;
  ipcHandleCounts: Map<string, number>;
  windows: StubWindow[];
  privilegedSchemes: Array<{ scheme: string; privileges: Record<string, boolean> }>;
  protocolHandlers: Map<string, (req: Request) => Promise<Response> | Response>;
  appEvents: Map<string, Listener[]>;
  powerEvents: Map<string, Listener[]>;
  openedExternal: string[];
  /** Every message box shown, and the button index each answers with (Cancel unless a test says otherwise). */
  messageBoxes: Array<Record<string, unknown>>;
  messageBoxAnswer: number;
  /** What app.getPreferredSystemLanguages() answers: the OS's languages, most preferred first. */
  systemLanguages: string[];
  exposed: Map<string, unknown>;
  /** What the preload ran in the page's main world, in order, with when each ran relative to exposeInMainWorld. */
  mainWorldScripts: Array<{ func: (...a: unknown[]) => unknown; args: unknown[]; beforeExpose: boolean }>;
  rendererInvokes: Array<{ channel: string; args: unknown[] }>;
  singleInstanceRequested: boolean;
  quits: number;
  /** What requestSingleInstanceLock answers: false stands for another instance already running. */
  singleInstanceAvailable: boolean;
  /** The Chromium switches app.commandLine.hasSwitch reports. */
  switches: Set<string>;
  exits: number[];
  errorBoxes: Array<{ title: string; content: string }>;
  /** How often a window was focused or restored. */
  focuses: number;
  restores: number;
  permissionHandler?: Listener;
  requestFilter?: { urls: string[] };
  requestListener?: Listener;
}

export const rec: Recording = {
  ipcHandlers: new Map(),
  ipcHandleCounts: new Map(),
  windows: [],
  privilegedSchemes: [],
  protocolHandlers: new Map(),
  appEvents: new Map(),
  powerEvents: new Map(),
  openedExternal: [],
  messageBoxes: [],
  messageBoxAnswer: 1,
  systemLanguages: ['en-US'],
  exposed: new Map(),
  mainWorldScripts: [],
  rendererInvokes: [],
  singleInstanceRequested: false,
  quits: 0,
  singleInstanceAvailable: true,
  switches: new Set(),
  exits: [],
  errorBoxes: [],
  focuses: 0,
  restores: 0,
};

const push = (m: Map<string, Listener[]>, k: string, l: Listener) => m.set(k, [...(m.get(k) ?? []), l]);

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, l: Listener) {
    push(this.listeners, event, l);
    return this;
  }
  once(event: string, l: Listener) {
    return this.on(event, l);
  }
  emit(event: string, ...args: unknown[]) {
    for (const l of this.listeners.get(event) ?? []) l(...args);
  }
}

export class StubWebContents extends Emitter {
  windowOpenHandler?: (d: { url: string }) => { action: string };
  readonly mainFrame = { url: 'app://mnemo/index.html' };
  sent: Array<{ channel: string; payload: unknown }> = [];
  devToolsClosed = 0;
  webRtcPolicy?: string;
  setWebRTCIPHandlingPolicy(policy: string) {
    this.webRtcPolicy = policy;
  }
  closeDevTools() {
    this.devToolsClosed++;
  }
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
    this.windowOpenHandler = h;
  }
  send(channel: string, payload: unknown) {
    this.sent.push({ channel, payload });
  }
}

export class StubWindow extends Emitter {
  readonly webContents = new StubWebContents();
  loadedURL?: string;
  constructor(readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>) {
    super();
    rec.windows.push(this);
  }
  loadURL(url: string) {
    this.loadedURL = url;
    return Promise.resolve();
  }
  isDestroyed() {
    return false;
  }
  isMinimized() {
    return false;
  }
  isMaximized() {
    return false;
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: 1000, height: 700 };
  }
  maximize() {}
  show() {}
  focus() {
    rec.focuses++;
  }
  restore() {
    rec.restores++;
  }
}

export function electronStub(userDataDir: string) {
  return {
    app: {
      requestSingleInstanceLock: () => {
        rec.singleInstanceRequested = true;
        return rec.singleInstanceAvailable;
      },
      commandLine: { hasSwitch: (name: string) => rec.switches.has(name) },
      exit: (code = 0) => void rec.exits.push(code),
      getPath: (name: string) => (name === 'userData' ? userDataDir : `${userDataDir}/${name}`),
      getPreferredSystemLanguages: () => rec.systemLanguages,
      getLocale: () => rec.systemLanguages[0] ?? 'en-US',
      whenReady: () => Promise.resolve(),
      isPackaged: true,
      on: (event: string, l: Listener) => push(rec.appEvents, event, l),
      quit: () => void rec.quits++,
    },
    BrowserWindow: Object.assign(StubWindow, { fromWebContents: (wc: unknown) => rec.windows.find((w) => w.webContents === wc) }),
    ClipboardItem: class {
      readonly types: string[];
      constructor(items: Record<string, unknown>) {
        this.types = Object.keys(items);
      }
    },
    clipboard: {
      write: async () => undefined,
      readText: async () => '',
      clear: () => undefined,
    },
    ipcMain: {
      handle: (channel: string, l: Listener) => {
        rec.ipcHandlers.set(channel, l);
        rec.ipcHandleCounts.set(channel, (rec.ipcHandleCounts.get(channel) ?? 0) + 1);
      },
    },
    protocol: {
      registerSchemesAsPrivileged: (s: Recording['privilegedSchemes']) => rec.privilegedSchemes.push(...s),
      handle: (scheme: string, h: (req: Request) => Promise<Response>) => rec.protocolHandlers.set(scheme, h),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Listener) => (rec.permissionHandler = h),
        setPermissionCheckHandler: () => undefined,
        webRequest: {
          onBeforeRequest: (filter: { urls: string[] }, l: Listener) => {
            rec.requestFilter = filter;
            rec.requestListener = l;
          },
        },
      },
    },
    shell: { openExternal: async (url: string) => void rec.openedExternal.push(url) },
    dialog: {
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showMessageBox: async (...args: unknown[]) => {
        rec.messageBoxes.push(args.at(-1) as Record<string, unknown>);
        return { response: rec.messageBoxAnswer };
      },
      showErrorBox: (title: string, content: string) => void rec.errorBoxes.push({ title, content }),
    },
    powerMonitor: { on: (event: string, l: Listener) => push(rec.powerEvents, event, l), getSystemIdleTime: () => 0 },
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => rec.exposed.set(key, api),
      executeInMainWorld: (script: { func: (...a: unknown[]) => unknown; args?: unknown[] }) =>
        void rec.mainWorldScripts.push({ func: script.func, args: script.args ?? [], beforeExpose: rec.exposed.size === 0 }),
    },
    ipcRenderer: {
      invoke: async (channel: string, ...args: unknown[]) => {
        rec.rendererInvokes.push({ channel, args });
        return { ok: true, value: null };
      },
      on: () => undefined,
      removeListener: () => undefined,
    },
  };
}
