/**
 * `mnemo mcp` serving from the vault itself, when no unlocked app answers.
 * The vault is unlocked once, at the first call that needs it (one Argon2id
 * derivation; the keys stay in memory), and held only while a call runs, so
 * the app and other `mnemo` processes are not kept out between calls.
 *
 * Every call goes through `createMemoryHandlers` + `runMemoryCommand`, exactly
 * as `mnemo memory` does: the same limits, path rules, secret guard (the
 * vault's own setting, read at each call) and answers. What a call changed is
 * known from the vault's change events; what others changed, by comparing the
 * project's files with a snapshot whenever a light poll of the vault's files
 * (only while a client is subscribed to a resource) sees them change.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MEMORY_GUIDANCE } from '../../shared/settings';
import { loadSettings } from '../chat/settings-store';
import { createMemoryHandlers } from '../memory/handlers';
import type { MemoryLimits } from '../memory/limits';
import { MEMORY_ROOT, validateMemoryPath } from '../memory/paths';
import { ROLLED_BACK_MESSAGE } from '../memory/errors';
import { runMemoryCommand } from '../memory/run';
import { moveAsidePreProjectsMemory } from '../projects/legacy';
import { FIRST_PROJECT_ID, Projects } from '../projects/store';
import { ReviewInbox, reviewVault } from '../review/inbox';
import { VaultError, type FileMeta, type VaultApi, type VaultChange } from '../vault/types';
import type { MemoryBackend, MemoryCommandAnswer } from './backend';

/** An opened (still locked) vault and how to hold it for one call. */
export interface VaultSession {
  readonly vault: VaultApi;
  /** Runs `fn` holding the vault: take the lock, catch up with what others wrote, run, release. */
  hold<T>(fn: () => Promise<T>): Promise<T>;
}

/** Why the vault cannot serve: the message is for the client's model and names no host path or secret. */
export class VaultUnavailable extends Error {
  constructor(
    message: string,
    /** True when trying again cannot help until the server's configuration changes (no or a wrong passphrase). */
    readonly lasting: boolean,
  ) {
    super(message);
    this.name = 'VaultUnavailable';
  }
}

export interface VaultBackendOptions {
  /** Opens the vault, still locked. Called again at the next call if it fails. */
  open(): Promise<VaultSession>;
  /** The passphrase, or a VaultUnavailable saying there is none. Never prompts: stdin is the MCP stream. */
  passphrase(): Promise<string>;
  /** The project by name; absent (and no `projectId`): the first project. */
  project?: string | undefined;
  /** The project by id, instead of by name. */
  projectId?: string | undefined;
  readOnly: boolean;
  /** The MCP client's name (cleaned), recorded with every write. */
  client(): string;
  limits?: Partial<MemoryLimits>;
  /** How often the vault's files are looked at while watching (default 1 s). */
  pollMs?: number;
  /** A cheap summary of the vault's files: when it changes, the next poll catches up and compares. */
  fingerprint?(dir: string): Promise<string>;
  log?(line: string): void;
  /** Why the running app last refused this server, if it did: said instead of "in use" when the app holds the vault. */
  appRefusal?(): string | undefined;
}

export interface VaultBackend extends MemoryBackend {
  readonly kind: 'vault';
  /** Look at the vault's files now and then for changes made by others (while a client is subscribed to something). */
  watch(on: boolean): void;
  /** The user's memory guidance from the vault's settings, if the vault can be opened. */
  guidance(): Promise<string>;
}

interface Unlocked {
  session: VaultSession;
  /** The project's id, found by name at the first call that reaches it (a missing project is not a reason to unlock again). */
  projectId?: string;
  stopReview?: () => void;
  review?: ReviewInbox;
}

const DEFAULT_POLL_MS = 1000;
const CANNOT = 'Mnemo could not open your memory';

/** A VaultBackend over the session `opts.open()` gives. */
export function createVaultBackend(opts: VaultBackendOptions): VaultBackend {
  const log = opts.log ?? (() => undefined);
  const listeners = new Set<(paths: string[]) => void>();
  let unlocked: Promise<Unlocked> | undefined;
  let lasting: VaultUnavailable | undefined;
  let snapshot: Map<string, string> | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;
  let watching = false;
  let timer: NodeJS.Timeout | undefined;
  let lastPrint: string | undefined;
  let polling = false;

  /** One thing at a time on this vault: calls, reads and polls all compare against one snapshot. */
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  async function unlock(): Promise<Unlocked> {
    if (lasting) throw lasting;
    if (closed) throw new VaultUnavailable(`${CANNOT}: this server is shutting down.`, true);
    let session: VaultSession | undefined;
    try {
      const passphrase = await opts.passphrase();
      session = await opts.open();
      await session.vault.unlock(passphrase);
      const vault = session.vault;
      if (!opts.readOnly && !vault.isRolledBack()) {
        const moved = await session.hold(() => moveAsidePreProjectsMemory(vault));
        if (moved) log(moved.text);
      }
      if (opts.readOnly) return { session };
      // Renames through this server keep the review inbox's notes right, as `mnemo memory`'s do.
      const review = new ReviewInbox(reviewVault(vault));
      return { session, review, stopReview: review.track() };
    } catch (e) {
      await session?.vault.close().catch(() => undefined);
      const why = unavailable(e, opts.appRefusal?.());
      if (why.lasting) lasting = why;
      throw why;
    }
  }

  /** The project's view of the vault (inside a hold); the first time, also the snapshot later calls compare with. */
  async function projectOf(u: Unlocked): Promise<VaultApi> {
    const projects = new Projects(u.session.vault);
    if (u.projectId === undefined) {
      u.projectId = opts.projectId !== undefined ? (await projects.require(opts.projectId)).id : opts.project === undefined ? FIRST_PROJECT_ID : (await projects.byName(opts.project)).id;
      const project = await projects.memoryVault(u.projectId);
      snapshot = files(project);
      return project;
    }
    return projects.memoryVault(u.projectId);
  }

  function ready(): Promise<Unlocked> {
    unlocked ??= unlock();
    // A failed open is tried again at the next call (the app may have released the vault, the vault may exist now).
    unlocked.catch(() => (unlocked = undefined));
    return unlocked;
  }

  function notify(changed: string[]): void {
    if (changed.length) for (const l of listeners) l(changed);
  }

  /**
   * Runs `fn` on the project's view of the vault, held; then tells listeners
   * which memories it changed. Found from the vault's change events, so a
   * call costs the same however many memories there are; what others wrote
   * is found by `refresh` (the poll).
   */
  function held<T>(fn: (project: VaultApi, vault: VaultApi) => Promise<T>): Promise<T> {
    return serial(async () => {
      const u = await ready();
      return u.session.hold(async () => {
        const project = await projectOf(u);
        const seen: VaultChange[] = [];
        const off = project.onChange((c) => seen.push(c));
        try {
          return await fn(project, u.session.vault);
        } finally {
          off();
          notify(applyOwn(project, seen));
        }
      });
    });
  }

  /** Compares the project's files with the snapshot (costs one listing) and tells listeners what others changed. */
  function refresh(): Promise<void> {
    return serial(async () => {
      const u = await ready();
      notify(await u.session.hold(async () => compare(await projectOf(u))));
    });
  }

  /** Applies this process's own changes to the snapshot: the files they touched, now as they are. */
  function applyOwn(project: VaultApi, changes: VaultChange[]): string[] {
    const snap = snapshot;
    if (!snap || changes.length === 0) return [];
    const out = new Set<string>();
    const drop = (p: string) => {
      for (const k of [...snap.keys()]) {
        if (k === p || k.startsWith(`${p}/`)) {
          snap.delete(k);
          out.add(k);
        }
      }
    };
    const add = (p: string) => {
      const meta = project.memory.stat(p);
      const entries = !meta ? [] : meta.kind === 'file' ? [meta] : project.memory.list(p, Infinity);
      for (const e of entries) {
        if (e.kind !== 'file') continue;
        snap.set(e.path, stamp(e));
        out.add(e.path);
      }
    };
    for (const c of changes) {
      if (c.op === 'write') add(c.path);
      else if (c.op === 'delete') drop(c.path);
      else if (c.op === 'rename') {
        drop(c.path);
        add(c.newPath);
      }
    }
    return [...out];
  }

  /** The paths whose file appeared, went or changed since the last look. */
  function compare(project: VaultApi): string[] {
    const now = files(project);
    const before = snapshot ?? new Map<string, string>();
    snapshot = now;
    const changed = [...now].filter(([p, v]) => before.get(p) !== v).map(([p]) => p);
    for (const p of before.keys()) if (!now.has(p)) changed.push(p);
    return changed;
  }

  async function poll(): Promise<void> {
    if (polling || !unlocked || closed) return;
    polling = true;
    try {
      const u = await unlocked;
      const print = await (opts.fingerprint ?? fingerprint)(u.session.vault.dir);
      if (print === lastPrint) return;
      lastPrint = print;
      await refresh();
    } catch {
      // The next poll (or call) tries again; a vault that cannot be opened is reported on calls.
    } finally {
      polling = false;
    }
  }

  function setTimer(): void {
    const want = watching && !closed && listeners.size > 0;
    if (want && !timer) {
      timer = setInterval(() => void poll(), opts.pollMs ?? DEFAULT_POLL_MS);
      // A watch alone must not keep the process alive once the client has gone.
      timer.unref();
    } else if (!want && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    kind: 'vault',
    async call(input: unknown): Promise<MemoryCommandAnswer> {
      try {
        return await held(async (project, vault) => {
          const settings = await loadSettings(vault);
          const handlers = createMemoryHandlers(project, {
            guardMode: () => settings.guardMode,
            source: 'cli',
            by: { kind: 'mcp', client: opts.client() },
            ...(opts.limits ? { limits: opts.limits } : {}),
          });
          return runMemoryCommand(handlers, input);
        });
      } catch (e) {
        return { content: `Error: ${unavailable(e, opts.appRefusal?.()).message}`, is_error: true };
      }
    },
    list: () =>
      held(async (project, vault) => {
        if (vault.isRolledBack()) throw new VaultError('ROLLED_BACK', capitalised(ROLLED_BACK_MESSAGE));
        return project.memory.list(MEMORY_ROOT, Infinity).flatMap((e) => (e.kind === 'file' ? [{ path: e.path, size: e.size, modified: e.modified }] : []));
      }),
    read: (p: string) =>
      held(async (project, vault) => {
        if (vault.isRolledBack()) throw new VaultError('ROLLED_BACK', capitalised(ROLLED_BACK_MESSAGE));
        return project.memory.readFile(validateMemoryPath(p));
      }),
    onChange(listener) {
      listeners.add(listener);
      setTimer();
      return () => {
        listeners.delete(listener);
        setTimer();
      };
    },
    // The vault does not go away: it is this process's own.
    onGone: () => () => undefined,
    watch(on: boolean) {
      watching = on;
      setTimer();
    },
    async guidance() {
      try {
        return await held(async (_project, vault) => (await loadSettings(vault)).memoryGuidance);
      } catch {
        return DEFAULT_MEMORY_GUIDANCE;
      }
    },
    async close() {
      closed = true;
      setTimer();
      await serial(async () => {
        const u = await unlocked?.catch(() => undefined);
        if (!u) return;
        u.stopReview?.();
        await u.review?.idle();
        await u.session.vault.close();
      });
    },
  };
}

const stamp = (e: FileMeta) => `${e.version}:${e.modified}:${e.size}`;

/** Each file of the project and its version stamp. */
function files(project: VaultApi): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of project.memory.list(MEMORY_ROOT, Infinity)) if (e.kind === 'file') out.set(e.path, stamp(e));
  return out;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Names, sizes and times of the vault's files: any write by anyone changes it (the journal grows, a segment appears). */
export async function fingerprint(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const sub of ['', 'segments']) {
    const at = path.join(dir, sub);
    for (const name of (await fs.readdir(at)).sort()) {
      const st = await fs.stat(path.join(at, name)).catch(() => undefined);
      if (st?.isFile()) parts.push(`${sub}/${name}:${st.size}:${st.mtimeMs}`);
    }
  }
  return parts.join('\n');
}

/** Any failure to open or serve, as the clear sentence the client gets. */
function unavailable(e: unknown, appRefusal?: string): VaultUnavailable {
  if (e instanceof VaultUnavailable) return e;
  if (e instanceof VaultError) {
    switch (e.code) {
      case 'NO_VAULT':
        return new VaultUnavailable(`${CANNOT}: there is no Mnemo vault where this server looks. Create one in the Mnemo app (or with "mnemo init"), or give this server its folder with --vault DIR.`, false);
      case 'BAD_PASSPHRASE':
        return new VaultUnavailable(`${CANNOT}: the passphrase this server was given does not open the vault. Correct MNEMO_PASSPHRASE or the --passphrase-file in this server's configuration, or unlock the Mnemo app.`, true);
      case 'IN_USE':
        // The unlocked app holds the vault and said why it would not serve this server: that is the useful answer.
        if (appRefusal) return new VaultUnavailable(`${CANNOT}: the Mnemo app holds the vault and did not take this call: ${appRefusal}`, false);
        return new VaultUnavailable(`${CANNOT}: the vault is in use by another program (the Mnemo app or another mnemo command). Unlock the Mnemo app to share it, or try again in a moment.`, false);
      default:
        // Vault messages never hold a host path or a secret (vault/types.ts).
        return new VaultUnavailable(e.message, false);
    }
  }
  if (e instanceof Error && e.name === 'MemoryPathError') return new VaultUnavailable(e.message, false);
  // OS errors carry host paths; the code is enough.
  const code = (e as { code?: unknown } | null)?.code;
  return new VaultUnavailable(`${CANNOT}: the operation failed unexpectedly${typeof code === 'string' ? ` (${code})` : ''}. Try again; if it keeps failing, run "mnemo verify".`, false);
}
