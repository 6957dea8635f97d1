/**
 * The main process's state behind the IPC handlers, in plain Node: the vault
 * (opened locked at start, unlocked by the user), change events for the
 * window, and the chat turns in flight.
 */
import path from 'node:path';
import { vaultDirIn } from '../../core/app-paths';
import { TemporaryConversations } from '../../core/chat/temporary';
import { PendingAttachments } from '../../core/chat/attachments-pending';
import { projectChanges } from '../../core/projects/scope';
import { ReviewInbox } from '../../core/review/inbox';
import { DraftKeeper } from '../../core/drafts';
import { resolveLimits, type MemoryLimits } from '../../core/memory/limits';
import { TurnInterrupt } from '../../core/chat/turn';
import { watchFolder, type FollowTimes } from '../../core/vault/sync/follow';
import { Vault } from '../../core/vault/vault';
import { VaultError, type KdfParams } from '../../core/vault/types';
import type { EventName, EventPayload } from '../../shared/ipc';
import type { SecretClipboard } from '../clipboard';
import { loadVaultFolder, saveVaultFolder } from '../device-prefs';
import type { LinkPorts } from '../links';
import type { ConsentQuestion } from './consent';
import { GuessLimiter } from './guesses';
import { m, said } from '../../core/i18n/message';

export interface HandlerContext {
  userDataDir: string;
  /** Where this device's rollback marks live (outside the vault). */
  stateDir: string;
  emit<K extends EventName>(event: K, payload: EventPayload<K>): void;
  /** Asks the user for a folder (a dialog in Electron). The path never reaches the renderer. */
  pickDirectory(purpose: 'backup' | 'export'): Promise<string | undefined>;
  /** Asks the user for files to attach (an open dialog in Electron); their paths never reach the renderer. Absent: none. */
  pickFiles?(): Promise<string[] | undefined>;
  /** Asks the user where to save a file (a save dialog in Electron), suggesting a name. Absent: nothing is saved. */
  pickSaveFile?(suggestedName: string): Promise<string | undefined>;
  /** Asks the user for a vault's folder ("Open a vault…"; a dialog in Electron). The path never reaches the renderer. Absent: none can be chosen. */
  pickVaultFolder?(): Promise<string | undefined>;
  /** The vault folder the app was started with (`--vault DIR` or MNEMO_VAULT): it goes before the one chosen last on this computer. */
  vaultDir?: string;
  env: NodeJS.ProcessEnv;
  /** Key-derivation cost for new vaults; calibrated when absent (tests pass the floor). */
  kdf?: KdfParams;
  /** Copies the recovery key, concealed and cleared later (Electron's clipboard in the app). Absent: copying is refused. */
  clipboard?: SecretClipboard;
  /** Confirms and opens links (a dialog and the OS browser in the app). Absent: no link opens. */
  links?: LinkPorts;
  /** The clock for how long a shown recovery key stays copyable (Date.now when absent; tests move it). */
  now?: () => number;
  /**
   * Asks the user, in a dialog main shows itself (never the window), whether a change the window asked for
   * that weakens a protection or replaces the API key may go ahead. Absent or false: only the passphrase allows it.
   */
  confirmChange?(question: ConsentQuestion): Promise<boolean>;
  /** Overrides of the memory tool's size limits, which the window's writes obey too (tests make them small). */
  memoryLimits?: Partial<MemoryLimits>;
  /** Opens and makes vaults in format 2 (several computers; docs/sync-design.md) or not; absent, the default (format 2 unless MNEMO_FORMAT=1). */
  format2?: boolean;
  /** How a format-2 vault follows its folder while unlocked (core sync/follow.ts); tests make it quick. */
  follow?: FollowTimes;
}

/** The failures of following vault.json that end a session (vault2.ts `followHeader`): the app then locks. */
const HEADER_LOST = new Set(['errors:vault.keysChanged', 'errors:header.modified', 'errors:vault.wentBack']);

/** How long a lock waits for the turns it stopped to save what they have; past it the lock goes ahead. */
export const LOCK_WAITS_FOR_TURNS_MS = 10_000;

/** A chat turn in flight: how to stop it, its held approvals (by the call id main minted), and when it has saved. */
export interface RunningTurn {
  controller: AbortController;
  approvals: Map<string, (allow: boolean) => void>;
  /** Settles once the turn has ended and saved what it had (absent until the turn starts). */
  finished?: Promise<unknown>;
}

/**
 * Told when the vault has been unlocked, and asked to finish before it locks or closes (the local channel for
 * other apps serves only while the vault is unlocked). `locking` runs before the keys go, beside the turns' stop.
 */
export interface SessionWatcher {
  unlocked(): void;
  locking(): Promise<void>;
}

/** How long after main hands out a recovery key the window may still have main copy it. */
export const RECOVERY_KEY_COPYABLE_MS = 10 * 60_000;

export class AppSession {
  private vault: Vault | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Turn id → how to stop it. */
  readonly turns = new Map<string, RunningTurn>();
  private shown: { key: string; until: number } | undefined;
  /**
   * True once a passphrase was set (or is being set) without the old one since
   * the last unlock: a recovery-key unlock allows that once, so a page cannot
   * later replace the passphrase the user has just chosen. Cleared on lock.
   */
  passphraseSetSinceUnlock = false;
  /** Counts locks, so a call that spans one can tell (a lock wipes the keys a long operation was using). */
  locks = 0;
  private unlocking: Promise<unknown> = Promise.resolve();
  /** Every passphrase or recovery-key check the window asks for, one at a time and slowed after wrong ones. */
  readonly guesses = new GuessLimiter(() => this.now());
  /** This session's temporary chats: in memory only, forgotten on lock and quit. */
  readonly temporary = new TemporaryConversations();
  /** Files added to messages not yet sent: their bytes stay in main, forgotten on lock and quit. */
  readonly attachments = new PendingAttachments();
  /** The window's unsaved work, written into the vault when it locks. */
  readonly drafts = new DraftKeeper();
  private locking: Promise<void> | undefined;
  /** The memory tool's size limits: every memory write the window asks for is held to them, as Claude's are. */
  readonly limits: MemoryLimits;
  private readonly watchers = new Set<SessionWatcher>();
  /** The vault's folder: the one the app was started with, else the one chosen last on this computer, else the default. */
  private folder: string;
  /** The folder the app was started with (`--vault` or MNEMO_VAULT), if any. */
  readonly startedWith: string | undefined;
  /** True while the folder was chosen with "Open a vault…" but holds no vault yet: it is remembered once one is made there. */
  private folderUnsaved = false;

  constructor(readonly ctx: HandlerContext) {
    this.limits = resolveLimits(ctx.memoryLimits);
    this.startedWith = ctx.vaultDir !== undefined ? path.resolve(ctx.vaultDir) : undefined;
    this.folder = this.startedWith ?? loadVaultFolder(ctx.userDataDir) ?? this.defaultDir;
    this.watch(this.followSync());
  }

  /**
   * While a format-2 vault is unlocked, what the sync engine brings is read
   * as it arrives (core sync/follow.ts), and the window hears of each memory
   * it changed as of any other change.
   */
  private followSync(): SessionWatcher {
    let stop: (() => void) | undefined;
    const end = () => {
      stop?.();
      stop = undefined;
    };
    return {
      unlocked: () => {
        end();
        const vault = this.vault;
        if (!vault?.format2 || !vault.isUnlocked()) return;
        stop = watchFolder(
          this.dir,
          async () => {
            if (!vault.isUnlocked()) return;
            const before = vault.arrivals();
            const told = vault.notices().count;
            try {
              await vault.ingest({ lockOnFailure: false });
            } catch (e) {
              // vault.json changed under it in a way the session cannot follow (other keys, not ours, gone back): the
              // app locks as always (turns saved, drafts kept in the vault), and the unlock says what is wrong.
              if (e instanceof VaultError && HEADER_LOST.has(e.key ?? '')) await this.lock('header');
              throw e;
            }
            // Conversations, settings and the computers listed may have changed too: the window reads them again, and
            // says what the user must know now (this computer found another copy of itself and gave way, say).
            const { notices, noticeKeys } = vault.notices(told);
            if (vault.arrivals() !== before || notices) this.ctx.emit('vaultSynced', notices ? { notices: notices.slice(0, 16), noticeKeys: noticeKeys?.slice(0, 16) } : {});
          },
          this.ctx.follow,
        );
      },
      locking: async () => end(),
    };
  }

  private now(): number {
    return (this.ctx.now ?? Date.now)();
  }

  /** Adds a watcher of unlocks and locks; returns how to remove it. */
  watch(watcher: SessionWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Tells the watchers the vault is unlocked (the handlers call it after an unlock or a create). */
  announceUnlocked(): void {
    for (const w of this.watchers) w.unlocked();
  }

  private watchersLocking(): Promise<unknown> {
    return Promise.allSettled([...this.watchers].map((w) => w.locking()));
  }

  /**
   * The recovery key last shown to the window, kept so Copy goes through main;
   * forgotten on lock and RECOVERY_KEY_COPYABLE_MS after it was shown, so a page
   * compromised later cannot have main put it back in the clipboard.
   */
  get shownRecoveryKey(): string | undefined {
    if (this.shown && this.now() > this.shown.until) this.shown = undefined;
    return this.shown?.key;
  }

  set shownRecoveryKey(key: string | undefined) {
    this.shown = key === undefined ? undefined : { key, until: this.now() + RECOVERY_KEY_COPYABLE_MS };
  }

  get dir(): string {
    return this.folder;
  }

  /** The app's own vault folder, in its user-data folder. */
  get defaultDir(): string {
    return vaultDirIn(this.ctx.userDataDir);
  }

  /**
   * Makes `dir` the vault's folder. An unlocked vault is first locked as the
   * user's own lock does (turns saved, drafts kept in it), then closed, which
   * releases it. `remember`: kept as this computer's choice now (`now`), once a
   * vault is made there (`onCreate`), or not at all. Runs in turn with unlocks.
   */
  moveTo(dir: string, remember: 'now' | 'onCreate' | 'no'): Promise<void> {
    const run = this.unlocking.then(async () => {
      if (dir !== this.folder) {
        await this.lock('user');
        this.unsubscribe?.();
        this.unsubscribe = undefined;
        const vault = this.vault;
        this.vault = undefined;
        this.folder = dir;
        await vault?.close();
      }
      this.folderUnsaved = remember === 'onCreate';
      if (remember === 'now') await this.rememberFolder();
    });
    this.unlocking = run.catch(() => undefined);
    return run;
  }

  /** Keeps the folder in use as this computer's choice (the default one as no choice). */
  private rememberFolder(): Promise<void> {
    this.folderUnsaved = false;
    return saveVaultFolder(this.ctx.userDataDir, this.folder === this.defaultDir ? undefined : this.folder);
  }

  async exists(): Promise<boolean> {
    return this.vault !== undefined || (await Vault.exists(this.dir));
  }

  isUnlocked(): boolean {
    return this.vault?.isUnlocked() ?? false;
  }

  /**
   * The vault, opened (locked) on first use. It holds its lock only while
   * unlocked: while the app is locked, `mnemo memory` and `mnemo mcp` may
   * use the vault (each per call), and an unlock waits for such a call to end.
   */
  async opened(): Promise<Vault> {
    if (!this.vault) this.attach(await Vault.open(this.dir, { stateDir: this.ctx.stateDir, releaseWhenLocked: true, ...this.format() }));
    return this.vault!;
  }

  /**
   * Runs unlocks one after another: two racing ones would each derive keys and
   * begin a session, and the one overwritten would keep its keys past any lock.
   * The second then finds the vault unlocked and begins nothing.
   */
  serialUnlock<T>(unlock: (vault: Vault) => Promise<T>): Promise<T> {
    const run = this.unlocking.then(async () => unlock(await this.opened()));
    this.unlocking = run.catch(() => undefined);
    return run;
  }

  /** The vault if unlocked, else LOCKED. */
  unlocked(): Vault {
    if (!this.vault?.isUnlocked()) throw new VaultError('LOCKED', m('errors:vault.locked'));
    return this.vault;
  }

  async create(passphrase: string): Promise<string> {
    if (this.vault) throw new VaultError('ALREADY_EXISTS', m('errors:vault.alreadyExists'));
    // Refuses a vault, a damaged one (its data without vault.json) and a folder holding anything else.
    await Vault.mayCreateIn(this.dir);
    const { vault, recoveryKey } = await Vault.create(this.dir, passphrase, { stateDir: this.ctx.stateDir, releaseWhenLocked: true, ...this.format(), ...(this.ctx.kdf ? { kdf: this.ctx.kdf } : {}) });
    this.attach(vault);
    this.shownRecoveryKey = recoveryKey;
    if (this.folderUnsaved) await this.rememberFolder();
    return recoveryKey;
  }

  private format(): { format2?: boolean } {
    return this.ctx.format2 === undefined ? {} : { format2: this.ctx.format2 };
  }

  private attach(vault: Vault): void {
    this.vault = vault;
    // First, so a rename's review note is queued before the window hears of the rename and asks for the list.
    const stopReview = new ReviewInbox(vault).track();
    const stopEvents = vault.onChange((c) => {
      if (c.op === 'lock') return;
      // The window sees each project's memory as its own /memories, never the vault's internal folder.
      for (const change of projectChanges(c)) this.ctx.emit('memoryChanged', change);
    });
    this.unsubscribe = () => {
      stopEvents();
      stopReview();
    };
  }

  /** True while a lock is under way (turns being stopped and saved, drafts written): no new turn may start. */
  get isLocking(): boolean {
    return this.locking !== undefined;
  }

  /**
   * Stops every turn as Stop does and waits (a while) for each to save the
   * user's message and what had streamed, keeps the window's drafts encrypted
   * in the vault (telling the window of any the vault could not take, before
   * the keys go), zeroes the keys, and tells the window (which then drops
   * every decrypted memory). Resolves once locked; a second lock while one runs joins it.
   */
  lock(reason: 'user' | 'idle' | 'system' | 'header'): Promise<void> {
    this.shownRecoveryKey = undefined;
    this.passphraseSetSinceUnlock = false;
    this.locks++;
    // A temporary chat keeps nothing once locked, its unsent message included.
    this.drafts.dropChatIn((id) => this.temporary.has(id));
    const turnsSaved = Promise.all([this.stopTurns(), this.watchersLocking()]);
    this.attachments.clear();
    const vault = this.vault;
    if (!vault?.isUnlocked()) {
      this.temporary.clear();
      this.drafts.forget();
      return this.locking ?? Promise.resolve();
    }
    this.locking ??= (async () => {
      await turnsSaved;
      // Again: the window hands drafts over debounced, so one typed in a temporary chat may have come meanwhile.
      this.drafts.dropChatIn((id) => this.temporary.has(id));
      this.temporary.clear();
      await this.keepDrafts(vault);
      // Again, with no await before the keys go: a file may have been attached while the lock waited.
      this.attachments.clear();
      if (vault.isUnlocked()) {
        vault.lock();
        this.ctx.emit('vaultLocked', { reason });
      }
    })().finally(() => (this.locking = undefined));
    return this.locking;
  }

  /**
   * Stops every turn as a lock (the turn keeps the user's message and what
   * streamed, marked as interrupted) and resolves once each has saved, or
   * after LOCK_WAITS_FOR_TURNS_MS: a turn that hangs must not keep the vault open.
   */
  private stopTurns(): Promise<void> {
    const running = [...this.turns.values()];
    if (!running.length) return Promise.resolve();
    for (const t of running) t.controller.abort(new TurnInterrupt('lock'));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, LOCK_WAITS_FOR_TURNS_MS)));
    const saved = Promise.allSettled(running.map((t) => t.finished)).then(() => undefined);
    return Promise.race([saved, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Writes the held drafts into the vault. One the vault cannot take (a full
   * disk, a failing drive) is not dropped in silence: the window is told, with
   * its text, before the keys go, so it keeps it in its box. The lock goes ahead
   * all the same: the lock matters more than the draft.
   */
  private async keepDrafts(vault: Vault): Promise<void> {
    const { failed, drafts } = await this.drafts.persist(vault);
    this.drafts.forget();
    if (failed) this.ctx.emit('draftsNotSaved', { drafts, ...said(failed) });
  }

  /** Locks and releases the vault and clears a recovery key still in the clipboard (app quit). */
  async close(): Promise<void> {
    this.shownRecoveryKey = undefined;
    // A copied recovery key would outlive its clearing timer, which ends with this process.
    await this.ctx.clipboard?.clearNow();
    this.drafts.dropChatIn((id) => this.temporary.has(id));
    this.attachments.clear();
    // Quitting in the middle of a reply keeps the message and what had streamed, as a lock does.
    await Promise.all([this.stopTurns(), this.watchersLocking()]);
    this.drafts.dropChatIn((id) => this.temporary.has(id));
    this.temporary.clear();
    // Quitting with unsaved work keeps it for the next unlock, as a lock does.
    if (this.vault?.isUnlocked()) await this.keepDrafts(this.vault);
    this.drafts.forget();
    this.attachments.clear();
    this.unsubscribe?.();
    await this.vault?.close();
    this.vault = undefined;
  }
}
