/**
 * The installed app's start-up guards (electron/main/guards.ts), run against
 * the recording `electron` stub's `app`: refused debugging switches, DevTools
 * closed, one instance that a second launch brings to the front.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { enforceStartupGuards, refusedSwitch, type GuardedApp } from '../../../electron/main/guards';
import { electronStub, rec, StubWebContents } from './electron-stub';

const stub = electronStub('/nonexistent/userData');
const packaged = stub.app as unknown as GuardedApp;
const unpackaged = { ...stub.app, isPackaged: false } as unknown as GuardedApp;
let focused = 0;

function start(argv: string[], app: GuardedApp = packaged, platform: NodeJS.Platform = 'linux'): boolean {
  return enforceStartupGuards({
    app,
    argv: ['/opt/Mnemo/mnemo', ...argv],
    platform,
    showError: (title, content) => stub.dialog.showErrorBox(title, content),
    focusExisting: () => void focused++,
  });
}

beforeEach(() => {
  rec.appEvents.clear();
  rec.switches.clear();
  rec.exits = [];
  rec.errorBoxes = [];
  rec.quits = 0;
  rec.singleInstanceRequested = false;
  rec.singleInstanceAvailable = true;
  focused = 0;
});

describe('the installed app refuses debugging switches before any window', () => {
  const refused = ['--remote-debugging-port=9222', '--remote-debugging-pipe', '--inspect', '--inspect-brk=9229', '--inspect-port=0', '--js-flags=--allow-natives-syntax', '-remote-debugging-port=9222', '--INSPECT'];
  for (const arg of refused) {
    it(`refuses ${arg}: tells the user, exits with status 1 and goes no further`, () => {
      expect(start(['notes.md', arg])).toBe(false);
      expect(rec.exits).toEqual([1]);
      expect(rec.errorBoxes).toHaveLength(1);
      expect(rec.errorBoxes[0]!.content).toContain(`--${arg.replace(/^-+/, '').split('=')[0]!.toLowerCase()}`);
      expect(rec.errorBoxes[0]!.content).toMatch(/Start Mnemo without it/);
      expect(rec.errorBoxes[0]!.content).not.toContain('/opt/Mnemo');
      expect(rec.singleInstanceRequested).toBe(false);
      expect(rec.appEvents.get('second-instance')).toBeUndefined();
    });
  }

  it('refuses a switch Chromium parsed even when the raw arguments do not show it', () => {
    rec.switches.add('remote-debugging-port');
    expect(start([])).toBe(false);
    expect(rec.exits).toEqual([1]);
  });

  it('refuses /inspect on Windows, where Chromium also reads slash switches', () => {
    expect(start(['/inspect'], packaged, 'win32')).toBe(false);
    expect(refusedSwitch(['x', '/inspect'], () => false, 'linux')).toBeUndefined();
  });

  it('lets ordinary arguments and anything after a bare -- through', () => {
    expect(refusedSwitch(['x', '--enable-logging', 'notes.md', '--', '--inspect'], () => false, 'linux')).toBeUndefined();
    expect(start(['--enable-logging'])).toBe(true);
    expect(rec.exits).toEqual([]);
    expect(rec.errorBoxes).toEqual([]);
  });

  it('leaves the switches to developers when the app is not packaged', () => {
    expect(start(['--inspect', '--remote-debugging-port=9222'], unpackaged)).toBe(true);
    expect(rec.exits).toEqual([]);
    expect(rec.appEvents.get('web-contents-created')).toBeUndefined();
  });
});

describe('developer tools in the installed app', () => {
  it('closes them whenever any web contents opens them', () => {
    expect(start([])).toBe(true);
    const wc = new StubWebContents();
    for (const l of rec.appEvents.get('web-contents-created') ?? []) l({}, wc);
    wc.emit('devtools-opened');
    expect(wc.devToolsClosed).toBe(1);
  });
});

describe('one instance', () => {
  it('quits a second launch before any window when another instance holds the lock', () => {
    rec.singleInstanceAvailable = false;
    expect(start([])).toBe(false);
    expect(rec.singleInstanceRequested).toBe(true);
    expect(rec.quits).toBe(1);
    expect(rec.appEvents.get('second-instance')).toBeUndefined();
  });

  it('brings the first window to the front when Mnemo is launched again', () => {
    expect(start([])).toBe(true);
    for (const l of rec.appEvents.get('second-instance') ?? []) l({}, ['/opt/Mnemo/mnemo'], '/');
    expect(focused).toBe(1);
  });
});
