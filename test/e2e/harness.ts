/**
 * Runs the app in real Chromium without Electron (DESIGN.md §9): the built
 * renderer is served over local HTTP with the app's CSP, the real handler
 * table runs in this Node process, and `window.mnemo` is installed in the page
 * through `exposeBinding`, built from the same contract as the preload. Every
 * IPC payload in both directions is recorded for the no-secrets spec.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createHandlers, dispatch, type AppSession } from '../../electron/main/handlers';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/csp';
import { readStatic } from '../../electron/main/static-files';
import { SecretClipboard, type ClipboardMarker } from '../../electron/main/clipboard';
import type { ConsentQuestion } from '../../electron/main/handlers/consent';
import { CALLS, CALL_NAMES, EVENTS, type CallName, type EventName } from '../../electron/shared/ipc';
import { removeWebRtc, WEBRTC_GLOBALS } from '../../electron/preload/no-webrtc';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RENDERER = path.join(ROOT, 'dist/renderer');
/** The KDF floor: real Argon2id, but fast enough for many unlocks per spec. */
export const TEST_KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** PLAYWRIGHT_CHROMIUM_EXECUTABLE, else the Debian package, else Playwright's own browser. */
export function chromiumExecutable(): string | undefined {
  const fromEnv = process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE;
  if (fromEnv) return fromEnv;
  for (const p of ['/usr/lib/chromium/chromium', '/usr/bin/chromium']) if (fs.existsSync(p)) return p;
  return undefined;
}

export interface IpcRecord {
  /** 'call': renderer → main arguments; 'result': main → renderer answer; 'event': main → renderer push. */
  direction: 'call' | 'result' | 'event';
  channel: string;
  payload: unknown;
}

export interface LaunchOptions {
  userDataDir: string;
  /** Where the chat client sends Messages API requests (test/fake-anthropic). */
  anthropicBaseURL?: string;
  /** An API key from the environment, as ANTHROPIC_API_KEY would give one, so specs need not type it. */
  anthropicApiKey?: string;
  /** Pick-folder answers for backup/export (a dialog in Electron). */
  pickDirectory?: (purpose: 'backup' | 'export') => Promise<string | undefined>;
  /** The folder main's "Open a vault…" picker returns (a dialog in Electron); absent: cancelled. */
  pickVaultFolder?: () => Promise<string | undefined>;
  /** The vault folder the app is started with, as `--vault DIR` or MNEMO_VAULT give it. */
  vaultDir?: string;
  /** The files main's "Attach files" dialog returns (an open dialog in Electron); absent: cancelled. */
  pickFiles?: () => Promise<string[] | undefined>;
  /** Save-file answers for a conversation export (a save dialog in Electron); absent: cancelled. */
  pickSaveFile?: (suggestedName: string) => Promise<string | undefined>;
  /**
   * The system language the page sees (`navigator.languages`, as Electron sets it from the OS);
   * default en-US. `en-XA` is the pseudo-locale: every catalog string bracketed and accented.
   */
  locale?: string;
  /** The OS theme the page sees (prefers-color-scheme). */
  colorScheme?: 'light' | 'dark';
  /** The answer to main's "Open this link?" dialog (default: Cancel). */
  confirmLinks?: boolean;
  /** The answer to main's own dialog before a weakening settings change or an API key replacement (default: Cancel). */
  confirmChanges?: boolean;
  /** How long a change another app asks for waits for the user (default: main's two minutes). */
  approvalTimeoutMs?: number;
  /** Where main keeps this device's state (default `<userDataDir>/state`): `<XDG_STATE_HOME>/mnemo` when a spec runs the CLI beside the app. */
  stateDir?: string;
  /**
   * A vault made with this passphrase through main's own create handler before the page loads, so the
   * page opens on the unlocked app (as after a reload). For specs not about first run: the first-run
   * screens cost seconds per test and have their own specs.
   */
  createdWith?: string;
  /** Main opens and makes the vault in format 2 (several computers) or, false, in format 1; absent, the default. */
  format2?: boolean;
}

export interface App {
  page: Page;
  /** The main-process side, for checking through core what the UI did. */
  session: AppSession;
  /** Every IPC payload so far, in order. */
  ipc: IpcRecord[];
  /** What main put in the clipboard (the OS clipboard in Electron). */
  clipboard: { text: string; markers: ClipboardMarker[] };
  /** Links main asked the user about, and links it handed to the OS browser. */
  links: { asked: string[]; opened: string[] };
  /** What main asked the user in its own consent dialog (a native dialog in Electron). */
  consents: ConsentQuestion[];
  /** Where main keeps this device's state: the local channel's socket and token file live here. */
  stateDir: string;
  /** The recovery key of the vault made with `createdWith`. */
  recoveryKey?: string;
  close(): Promise<void>;
}

let browser: Promise<Browser> | undefined;

/**
 * One Chromium per test process (a Playwright worker), started on first use;
 * each app gets its own fresh context in it, which shares no storage, cache
 * or page with any other. Playwright ends the browser when the process exits.
 */
function sharedBrowser(): Promise<Browser> {
  browser ??= chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_FLAGS }).then(
    (b) => (b.on('disconnected', () => (browser = undefined)), b),
    (e: unknown) => ((browser = undefined), Promise.reject(e)),
  );
  return browser;
}

/** Starts the app on a user-data directory and returns the page once the renderer has loaded. */
export async function launchApp(opts: LaunchOptions): Promise<App> {
  if (!fs.existsSync(path.join(RENDERER, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  const server = await serve(RENDERER);
  const ipc: IpcRecord[] = [];
  const ref: { page?: Page } = {};
  const clipboard = { text: '', markers: [] as ClipboardMarker[] };
  const links = { asked: [] as string[], opened: [] as string[] };
  const consents: ConsentQuestion[] = [];

  const stateDir = opts.stateDir ?? path.join(opts.userDataDir, 'state');
  const { handlers, session } = createHandlers({
    userDataDir: opts.userDataDir,
    stateDir,
    // As main does: the local channel for other apps serves while the vault is unlocked.
    channel: opts.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: opts.approvalTimeoutMs } : {},
    kdf: TEST_KDF,
    ...(opts.format2 !== undefined ? { format2: opts.format2 } : {}),
    env: {
      ...(opts.anthropicBaseURL ? { ANTHROPIC_BASE_URL: opts.anthropicBaseURL } : {}),
      ...(opts.anthropicApiKey ? { ANTHROPIC_API_KEY: opts.anthropicApiKey } : {}),
    },
    pickDirectory: opts.pickDirectory ?? (async () => undefined),
    pickSaveFile: opts.pickSaveFile ?? (async () => undefined),
    pickFiles: opts.pickFiles ?? (async () => undefined),
    pickVaultFolder: opts.pickVaultFolder ?? (async () => undefined),
    ...(opts.vaultDir !== undefined ? { vaultDir: opts.vaultDir } : {}),
    clipboard: new SecretClipboard(
      {
        write: async (text, markers) => void Object.assign(clipboard, { text, markers }),
        readText: async () => clipboard.text,
        clear: async () => void Object.assign(clipboard, { text: '', markers: [] }),
      },
      'darwin',
      // Unref'd, so a pending clear never keeps the test process alive.
      { setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
    ),
    links: {
      confirm: async (url) => (links.asked.push(url), opts.confirmLinks ?? false),
      openExternal: async (url) => void links.opened.push(url),
    },
    confirmChange: async (q) => (consents.push(q), opts.confirmChanges ?? false),
    emit: (event: EventName, payload: unknown) => {
      const channel = EVENTS[event].channel;
      ipc.push({ direction: 'event', channel, payload });
      void ref.page?.evaluate(([c, p]) => (window as unknown as { __mnemoEmit(c: string, p: unknown): void }).__mnemoEmit(c, p), [channel, payload] as const).catch(() => undefined);
    },
  });

  // The browser side starts while main makes the vault: Chromium's new page and the key derivation overlap.
  const opening = sharedBrowser()
    .then((b) => b.newContext({ colorScheme: opts.colorScheme ?? 'light', viewport: { width: 1280, height: 800 }, locale: opts.locale ?? 'en-US' }))
    .then(async (context) => ({ context, page: await context.newPage() }));
  const making = opts.createdWith === undefined ? undefined : dispatch(handlers, 'vaultCreate', [{ passphrase: opts.createdWith }]);
  const [{ context, page }, made] = await Promise.all([opening, making]);
  if (made && !made.ok) {
    await context.close();
    throw new Error(`Making the vault failed: ${made.error.message}`);
  }
  const recoveryKey = made?.ok ? (made.value as { recoveryKey: string }).recoveryKey : undefined;
  ref.page = page;
  const byChannel = new Map<string, CallName>(CALL_NAMES.map((n) => [CALLS[n].channel, n]));

  await page.exposeBinding('__mnemoInvoke', async (source, channel: string, args: unknown) => {
    // As in Electron's handle(): only our page's main frame may call, and only the contract's channels exist.
    const name = byChannel.get(channel);
    if (source.frame !== page.mainFrame() || !name) return { ok: false, error: { code: 'FORBIDDEN', message: 'Refused.' } };
    ipc.push({ direction: 'call', channel, payload: args });
    const result = await dispatch(handlers, name, args);
    ipc.push({ direction: 'result', channel, payload: result });
    return result;
  });
  const calls = Object.fromEntries(CALL_NAMES.map((n) => [n, CALLS[n].channel]));
  const events = Object.fromEntries(Object.entries(EVENTS).map(([n, e]) => [n, e.channel]));
  // As the preload does first: WebRTC removed from the page before any page script runs, by the same function.
  await page.addInitScript(removeWebRtc, [...WEBRTC_GLOBALS]);
  // The page-side twin of the preload's buildApi(): one method per call, plus on(event).
  await page.addInitScript(
    ({ calls, events }) => {
      const w = window as unknown as Record<string, unknown> & { __mnemoInvoke(c: string, a: unknown[]): Promise<unknown> };
      const listeners = new Map<string, Set<(p: unknown) => void>>();
      const api: Record<string, unknown> = {};
      for (const [name, channel] of Object.entries(calls)) api[name] = (...args: unknown[]) => w.__mnemoInvoke(channel, args);
      api.on = (event: string, listener: (p: unknown) => void) => {
        const channel = events[event];
        if (!channel) throw new Error(`Unknown event ${event}`);
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(listener);
        return () => listeners.get(channel)!.delete(listener);
      };
      Object.defineProperty(window, '__mnemoEmit', { value: (c: string, p: unknown) => listeners.get(c)?.forEach((l) => l(p)) });
      Object.defineProperty(window, 'mnemo', { value: Object.freeze(api) });
    },
    { calls, events },
  );

  await page.goto(`${server.url}/index.html`);
  return {
    page,
    session,
    ipc,
    clipboard,
    links,
    consents,
    stateDir,
    ...(recoveryKey !== undefined ? { recoveryKey } : {}),
    close: async () => {
      await context.close().catch(() => undefined);
      await session.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function serve(root: string): Promise<http.Server & { url: string }> {
  const server = http.createServer((req, res) => {
    void readStatic(root, req.url ?? '/').then((file) => {
      if (!file || req.method !== 'GET') {
        res.writeHead(404).end('Not found');
        return;
      }
      res.writeHead(200, { 'content-type': file.contentType, 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' });
      res.end(file.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(server, { url: `http://127.0.0.1:${port}` });
}
