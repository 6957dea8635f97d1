/**
 * Where each call of `mnemo mcp` goes: to the running, unlocked app when it
 * answers (so the app stays the one holder: live updates, approval mode,
 * review inbox), else to the vault opened by this process for the length of
 * the call. The app is asked again now and then, so it takes over when it
 * starts or is unlocked; when it locks or quits mid-session the next call
 * goes to the vault.
 */
import type { FileInfo } from './protocol';
import type { CallOptions, MemoryBackend, MemoryCommandAnswer } from './backend';

/** How often, at most, a call asks for the app again while the vault serves. */
export const APP_RETRY_MS = 2000;

export interface RouterOptions {
  /** The app's backend, or undefined when no unlocked app answers (or it refused). */
  connectApp: () => Promise<MemoryBackend | undefined>;
  /** This process's own backend on the vault (opened once, on first need). */
  openVault: () => Promise<MemoryBackend>;
  retryMs?: number;
  now?: () => number;
  /** One line for stderr when the way calls go changes. */
  log?: (line: string) => void;
}

/** The router is itself a MemoryBackend; `kind` says where the last call went. */
export interface Router extends MemoryBackend {
  readonly kind: 'app' | 'vault';
  /** Asks the vault backend (if it has `watch`) to look for changes by others while something is subscribed. */
  watch(on: boolean): void;
  /** Looks for the app now (at most once per retry period), so what it allows is known before the first call. */
  prime(): Promise<void>;
  /** Whether the app lets this server only view: what it last said while it serves; false while the vault serves. */
  onAccess(listener: (readOnly: boolean) => void): () => void;
}

type Watchable = MemoryBackend & { watch?(on: boolean): void };

/** A MemoryBackend that serves each call from the app when it answers, else from the vault. */
export function createRouter(opts: RouterOptions): Router {
  const retryMs = opts.retryMs ?? APP_RETRY_MS;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => undefined);
  const changeListeners = new Set<(paths: string[]) => void>();
  const goneListeners = new Set<() => void>();
  const accessListeners = new Set<(readOnly: boolean) => void>();
  let appReadOnly = false;
  const access = (readOnly: boolean) => {
    if (readOnly === appReadOnly) return;
    appReadOnly = readOnly;
    for (const l of accessListeners) l(readOnly);
  };
  const forward = (paths: string[]) => {
    for (const l of changeListeners) l(paths);
  };

  let app: { backend: MemoryBackend; off: () => void } | undefined;
  let lastAppTry = -Infinity;
  let vault: Promise<MemoryBackend> | undefined;
  let vaultFeed: (() => void) | undefined;
  let kind: 'app' | 'vault' = 'vault';
  let closed = false;
  let watching = false;

  function dropApp(): void {
    if (!app) return;
    const { backend, off } = app;
    app = undefined;
    off();
    // The vault serves next: the app's rules for this client do not reach it (only --read-only does).
    access(false);
    // The app is gone or going: closing our end is all that is left to do, and it must not fail the next call.
    void backend.close().catch(() => undefined);
    log('the Mnemo app stopped answering (locked or closed); calls now go to the vault');
  }

  let connecting: Promise<MemoryBackend | undefined> | undefined;
  /** The app's backend if it is connected or answers now; asked at most once per `retryMs`, one ask at a time. */
  function tryApp(): Promise<MemoryBackend | undefined> {
    if (app) return Promise.resolve(app.backend);
    if (connecting) return connecting;
    if (now() - lastAppTry < retryMs) return Promise.resolve(undefined);
    lastAppTry = now();
    connecting = connectApp().finally(() => (connecting = undefined));
    return connecting;
  }

  async function connectApp(): Promise<MemoryBackend | undefined> {
    let backend: MemoryBackend | undefined;
    try {
      backend = await opts.connectApp();
    } catch {
      backend = undefined;
    }
    if (!backend) return undefined;
    if (closed) {
      await backend.close().catch(() => undefined);
      return undefined;
    }
    const offChange = backend.onChange(forward);
    const offGone = backend.onGone(dropApp);
    const offAccess = backend.onAccess?.(access) ?? (() => undefined);
    app = { backend, off: () => (offChange(), offGone(), offAccess()) };
    // While the app serves it reports every change itself; the vault's own watch would only repeat them.
    vaultFeed?.();
    vaultFeed = undefined;
    log('calls now go to the running Mnemo app');
    return backend;
  }

  async function vaultBackend(): Promise<MemoryBackend> {
    const first = !vault;
    // A failed open is asked again at the next call.
    vault ??= opts.openVault().catch((e: unknown) => {
      vault = undefined;
      throw e;
    });
    const backend: Watchable = await vault;
    if (first) backend.watch?.(watching);
    if (!vaultFeed && !closed) vaultFeed = backend.onChange(forward);
    return backend;
  }

  /** The backend for the next call: the app if it answers, else the vault. */
  async function pick(): Promise<MemoryBackend> {
    const viaApp = await tryApp();
    if (viaApp) {
      kind = 'app';
      return viaApp;
    }
    kind = 'vault';
    return vaultBackend();
  }

  /** Runs `fn` on the picked backend; if the app went away during it, once more on the vault. */
  async function serve<T>(fn: (b: MemoryBackend) => Promise<T>, retryOnVault: boolean): Promise<T> {
    const backend = await pick();
    try {
      return await fn(backend);
    } catch (e) {
      if (backend.kind !== 'app' || app?.backend === backend || !retryOnVault) throw e;
      // The app left while answering (it locked): a read can safely be asked of the vault instead.
      kind = 'vault';
      return fn(await vaultBackend());
    }
  }

  return {
    get kind() {
      return kind;
    },
    async prime() {
      await tryApp();
    },
    onAccess(listener) {
      accessListeners.add(listener);
      return () => accessListeners.delete(listener);
    },
    watch(on: boolean) {
      watching = on;
      void vault?.then((b: Watchable) => b.watch?.(on)).catch(() => undefined);
    },
    // A call is never retried on the vault: the app may have applied it before it went.
    call: (input: unknown, callOpts?: CallOptions): Promise<MemoryCommandAnswer> => serve((b) => b.call(input, callOpts), false),
    list: (): Promise<FileInfo[]> => serve((b) => b.list(), true),
    read: (path: string): Promise<string> => serve((b) => b.read(path), true),
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    // The router itself never goes: it always has the vault to fall back on.
    onGone(listener) {
      goneListeners.add(listener);
      return () => goneListeners.delete(listener);
    },
    async close() {
      closed = true;
      vaultFeed?.();
      vaultFeed = undefined;
      const current = app;
      app = undefined;
      current?.off();
      await Promise.all([current?.backend.close().catch(() => undefined), vault?.then((b) => b.close()).catch(() => undefined)]);
    },
  };
}
