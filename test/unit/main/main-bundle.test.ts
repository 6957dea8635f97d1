/**
 * Loads the BUILT main bundle and preload under plain Node with a recording
 * `electron` stub, to catch the wiring mistakes the Chromium harness cannot
 * see: channels registered, window preferences, protocol, preload location.
 */
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createBuilder } from 'vite';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CALLS, CALL_NAMES, EVENTS } from '../../../electron/shared/ipc';
import { rec, type StubWindow } from './electron-stub';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const paths = vi.hoisted(() => {
  // Hoisted above the imports, so only globals here: a fresh folder name under the temp dir.
  const tmp = process.env.TMPDIR ?? process.env.TEMP ?? '/tmp';
  const base = `${tmp}/mnemo-main-bundle-${process.pid}-${Math.random().toString(36).slice(2)}`;
  return { base, userData: `${base}/userData`, out: `${base}/dist` };
});
vi.mock('electron', async () => (await import('./electron-stub')).electronStub(paths.userData));

let win: StubWindow;

beforeAll(async () => {
  // A fresh build of the two Node targets into a temporary dist, so the test checks this tree's code.
  const builder = await createBuilder({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'silent',
    environments: { main: { build: { outDir: path.join(paths.out, 'main') } }, preload: { build: { outDir: path.join(paths.out, 'preload') } } },
  });
  await builder.build(builder.environments.main!);
  await builder.build(builder.environments.preload!);
  fs.mkdirSync(path.join(paths.out, 'renderer'), { recursive: true });
  fs.writeFileSync(path.join(paths.out, 'renderer/index.html'), '<!doctype html><title>Mnemo</title>');
  await import(/* @vite-ignore */ path.join(paths.out, 'main/index.js'));
  await new Promise((r) => setTimeout(r, 50)); // let app.whenReady().then(...) run
  win = rec.windows[0]!;
}, 120_000);

const mainFrameEvent = () => ({ sender: win.webContents, senderFrame: win.webContents.mainFrame });

describe('the built main bundle', () => {
  it('asks for the single-instance lock', () => {
    expect(rec.singleInstanceRequested).toBe(true);
  });

  it('brings its window to the front when Mnemo is launched a second time', () => {
    const before = rec.focuses;
    for (const l of rec.appEvents.get('second-instance') ?? []) l({}, [], '/');
    expect(rec.focuses).toBe(before + 1);
  });

  it('closes developer tools that any web contents opens in the packaged app', async () => {
    const { StubWebContents } = await import('./electron-stub');
    const other = new StubWebContents();
    for (const l of rec.appEvents.get('web-contents-created') ?? []) l({}, other);
    other.emit('devtools-opened');
    expect(other.devToolsClosed).toBe(1);
  });

  it('registers exactly the contract’s channels, each once', () => {
    expect([...rec.ipcHandlers.keys()].sort()).toEqual(CALL_NAMES.map((n) => CALLS[n].channel).sort());
    for (const n of rec.ipcHandleCounts.values()) expect(n).toBe(1);
  });

  it('creates one window with the secure preferences', () => {
    expect(rec.windows).toHaveLength(1);
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
  });

  it('points at a CommonJS preload that exists in the build output and requires only electron', () => {
    const preload = String(win.options.webPreferences.preload);
    expect(preload.endsWith('.cjs')).toBe(true);
    expect(path.resolve(preload)).toBe(path.join(paths.out, 'preload/index.cjs'));
    const code = fs.readFileSync(preload, 'utf8');
    expect([...code.matchAll(/require\((["'])([^"']+)\1\)/g)].map((m) => m[2])).toEqual(['electron']);
  });

  it('serves the renderer from the privileged app:// protocol with a CSP, never file://', async () => {
    expect(rec.privilegedSchemes).toContainEqual(expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }));
    expect(win.loadedURL).toBe('app://mnemo/index.html');
    const serve = rec.protocolHandlers.get('app')!;
    const ok = await serve(new Request('app://mnemo/index.html'));
    expect(ok.status).toBe(200);
    const csp = ok.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
    for (const bad of ['app://mnemo/../main/index.js', 'app://mnemo/%2e%2e/main/index.js', 'app://mnemo/..%2fmain%2findex.js', 'app://other/index.html']) {
      expect((await serve(new Request(bad))).status, bad).toBe(404);
    }
  });

  it('refuses navigation and new windows; a link opens only after main shows its full URL and the user chooses Open', async () => {
    const prevented: string[] = [];
    for (const l of win.webContents.listeners.get('will-navigate') ?? []) l({ url: 'https://evil.example/nav', preventDefault: () => prevented.push('nav') }, 'https://evil.example/nav');
    expect(prevented).toEqual(['nav']);
    const open = win.webContents.windowOpenHandler!;
    expect(open({ url: 'https://evil.example/phish?m=secret' })).toEqual({ action: 'deny' });
    expect(open({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(open({ url: 'https://console.anthropic.com/settings/keys' })).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(rec.messageBoxes).toHaveLength(2));
    expect(rec.messageBoxes.map((b) => b.detail)).toEqual([expect.stringContaining('https://evil.example/nav'), expect.stringContaining('https://evil.example/phish?m=secret')]);
    expect(rec.openedExternal).toEqual(['https://console.anthropic.com/settings/keys']);
    rec.messageBoxAnswer = 0;
    open({ url: 'https://github.com/mnemo/issues' });
    await vi.waitFor(() => expect(rec.openedExternal).toEqual(['https://console.anthropic.com/settings/keys', 'https://github.com/mnemo/issues']));
    rec.messageBoxAnswer = 1;
  });

  it('answers IPC only from our window’s main frame', async () => {
    const handler = rec.ipcHandlers.get(CALLS.vaultStatus.channel)!;
    expect(await handler(mainFrameEvent())).toEqual({ ok: true, value: { exists: false, unlocked: false, rolledBack: false } });
    const subframe = { sender: win.webContents, senderFrame: { url: 'app://mnemo/index.html' } };
    expect(await handler(subframe)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const foreign = { sender: win.webContents, senderFrame: { ...win.webContents.mainFrame, url: 'https://evil.example/' } };
    expect(await handler(foreign)).toMatchObject({ ok: false });
  });

  it('rejects malformed arguments through the registered handler', async () => {
    const unlock = rec.ipcHandlers.get(CALLS.vaultUnlock.channel)!;
    expect(await unlock(mainFrameEvent(), { passphrase: 42 })).toMatchObject({ ok: false });
  });

  it('guards every web contents created later, and cancels any web request from a page', async () => {
    const { StubWebContents } = await import('./electron-stub');
    const other = new StubWebContents();
    for (const l of rec.appEvents.get('web-contents-created') ?? []) l({}, other);
    const prevented: string[] = [];
    for (const l of other.listeners.get('will-navigate') ?? []) l({ preventDefault: () => prevented.push('nav') });
    expect(prevented).toEqual(['nav']);
    expect(other.windowOpenHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(rec.requestFilter?.urls).toEqual(expect.arrayContaining(['http://*/*', 'https://*/*']));
    const answers: unknown[] = [];
    rec.requestListener!({ url: 'https://evil.example/steal?d=1' }, (r: unknown) => answers.push(r));
    expect(answers).toEqual([{ cancel: true }]);
  });

  it('sends no WebRTC over UDP from our window or any web contents created later', async () => {
    expect(win.webContents.webRtcPolicy).toBe('disable_non_proxied_udp');
    const { StubWebContents } = await import('./electron-stub');
    const other = new StubWebContents();
    for (const l of rec.appEvents.get('web-contents-created') ?? []) l({}, other);
    expect(other.webRtcPolicy).toBe('disable_non_proxied_udp');
  });

  it('turns developer tools off in the packaged app', () => {
    expect(win.options.webPreferences.devTools).toBe(false);
  });

  it('holds quitting until the vault is closed, then quits', async () => {
    const [willQuit] = rec.appEvents.get('will-quit') ?? [];
    let prevented = 0;
    willQuit!({ preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
    await vi.waitFor(() => expect(rec.quits).toBe(1));
    willQuit!({ preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
  });

  it('locks on OS lock-screen and suspend', () => {
    expect(rec.powerEvents.get('lock-screen')).toHaveLength(1);
    expect(rec.powerEvents.get('suspend')).toHaveLength(1);
  });
});

describe('the built preload', () => {
  it('exposes window.mnemo with one method per call plus on(), and invokes the right channel', async () => {
    const code = fs.readFileSync(path.join(paths.out, 'preload/index.cjs'), 'utf8');
    const stub = (await import('./electron-stub')).electronStub(paths.userData);
    const module = { exports: {} };
    new Function('require', 'module', 'exports', code)((id: string) => {
      if (id === 'electron') return stub;
      throw new Error(`a sandboxed preload cannot require ${id}`);
    }, module, module.exports);
    const api = rec.exposed.get('mnemo') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...CALL_NAMES, 'on'].sort());
    await (api.memoryRead as (a: unknown) => Promise<unknown>)({ path: '/memories/a.md' });
    expect(rec.rendererInvokes.at(-1)).toEqual({ channel: CALLS.memoryRead.channel, args: [{ path: '/memories/a.md' }] });
    expect(() => (api.on as (e: string, l: () => void) => void)('notAnEvent', () => undefined)).toThrow();
    expect(typeof (api.on as (e: string, l: () => void) => () => void)(Object.keys(EVENTS)[0]!, () => undefined)).toBe('function');
  });

  it('removes WebRTC from the main world before exposing anything, with a script that runs on its own there', () => {
    expect(rec.mainWorldScripts).toHaveLength(1);
    const [script] = rec.mainWorldScripts;
    expect(script!.beforeExpose).toBe(true);
    expect(script!.args[0]).toEqual(expect.arrayContaining(['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription']));
    // Electron serialises the function into the page: run its source alone in a fresh context standing in for one.
    class MediaDevices {
      getUserMedia() {}
      getDisplayMedia() {}
    }
    const page: Record<string, unknown> = { RTCPeerConnection: class {}, webkitRTCPeerConnection: class {}, RTCDataChannel: class {}, RTCIceCandidate: class {}, MediaDevices, navigator: { getUserMedia() {}, mediaDevices: new MediaDevices() }, length: 0 };
    const context = vm.createContext(page);
    vm.runInContext(`(${script!.func.toString()})(${JSON.stringify(script!.args[0])})`, context);
    expect(vm.runInContext('[typeof RTCPeerConnection, typeof webkitRTCPeerConnection, typeof RTCDataChannel, typeof RTCIceCandidate, typeof navigator.getUserMedia, typeof navigator.mediaDevices]', context)).toEqual(Array(6).fill('undefined'));
    expect(vm.runInContext('RTCPeerConnection = function () {}; typeof RTCPeerConnection', context)).toBe('undefined');
    expect(typeof (MediaDevices.prototype as unknown as Record<string, unknown>).getUserMedia).toBe('undefined');
  });
});

process.on('exit', () => fs.rmSync(paths.base, { recursive: true, force: true }));
