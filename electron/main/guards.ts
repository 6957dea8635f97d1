/**
 * Start-up guards for the installed app. The window holds an unlocked vault,
 * so an installed Mnemo refuses the switches that would let another program
 * attach a debugger to it, closes developer tools if anything opens them, and
 * runs as one instance (two would fight over the vault's lock).
 */
import { englishErrors } from '../core/i18n/message';
import type { Translate } from '../core/i18n/translator';

/** The parts of Electron's `app` the guards use; the real `app` and the test stub both fit. */
export interface GuardedApp {
  readonly isPackaged: boolean;
  readonly commandLine: { hasSwitch(name: string): boolean };
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: GuardedContents) => void): unknown;
  quit(): void;
  exit(code?: number): void;
}

/** The parts of a web contents the DevTools guard uses. */
export interface GuardedContents {
  on(event: 'devtools-opened', listener: () => void): unknown;
  closeDevTools(): void;
}

export interface GuardOptions {
  app: GuardedApp;
  /** The process's command line (process.argv). */
  argv: readonly string[];
  platform?: NodeJS.Platform;
  /** Shows a message before any window exists (dialog.showErrorBox). */
  showError: (title: string, content: string) => void;
  /** The language it is said in (main's: language.ts); English when absent. */
  t?: Translate;
  /** Brings the running window to the front when Mnemo is launched a second time. */
  focusExisting: () => void;
}

// Chromium's remote debugging, Node's inspector and raw V8 flags: each opens the process to a debugger.
const REFUSED = /^(remote-debugging-(port|pipe|address)|inspect(-[a-z-]+)?|js-flags)$/;

/**
 * The first command-line switch the installed app refuses, written as `--name`,
 * or undefined. Reads the raw arguments (any `-`/`--` prefix, and `/` on
 * Windows, with or without `=value`) and asks Chromium's own parser too.
 */
export function refusedSwitch(argv: readonly string[], hasSwitch: (name: string) => boolean, platform: NodeJS.Platform = process.platform): string | undefined {
  const prefix = platform === 'win32' ? /^(?:--?|\/)([^=\s]+)/ : /^--?([^=\s]+)/;
  for (const arg of argv.slice(1)) {
    if (arg === '--') break; // Chromium reads no switches after a bare `--`.
    const name = prefix.exec(arg)?.[1]?.toLowerCase();
    if (name && REFUSED.test(name)) return `--${name}`;
  }
  for (const name of ['remote-debugging-port', 'remote-debugging-pipe', 'inspect', 'inspect-brk', 'inspect-port', 'js-flags']) {
    if (hasSwitch(name)) return `--${name}`;
  }
  return undefined;
}

/**
 * Runs before any window is created. Returns false when this process must not
 * go on: a refused switch on the installed app (after telling the user and
 * exiting) or another instance already running (which this launch focuses).
 */
export function enforceStartupGuards(opts: GuardOptions): boolean {
  const { app } = opts;
  if (app.isPackaged) {
    const bad = refusedSwitch(opts.argv, (n) => app.commandLine.hasSwitch(n), opts.platform);
    if (bad) {
      const t = opts.t ?? englishErrors();
      opts.showError(t('errors:dialog.startup.title'), t('errors:dialog.startup.refusedSwitch', { option: bad }));
      app.exit(1);
      return false;
    }
    // The window turns DevTools off; close them again should anything still open them.
    app.on('web-contents-created', (_e, contents) => {
      contents.on('devtools-opened', () => contents.closeDevTools());
    });
  }
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => opts.focusExisting());
  return true;
}
