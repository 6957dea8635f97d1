/**
 * An encrypted memory vault on disk (format v1; see store.ts for the layout and
 * header.ts for vault.json). Open it locked with `Vault.open`, or make one with
 * `Vault.create`; unlock with the passphrase or the recovery key. The session
 * and mutation queue are in session.ts, unlocking and the keys in vault-keys.ts,
 * vault.json and the rollback alarm in headerfile.ts, kept versions in
 * history.ts, the trash in trash.ts.
 */
import { defaultStateDir } from '../app-paths';
import { cryptoReady } from './crypto';
import { io } from './files';
import { vaultIdBytes, type Header } from './header';
import { HeaderFile, headerMissing } from './headerfile';
import { nodeFs, type VaultFs } from './fsio';
import { calibrateKdf } from './kdf';
import { checkPassphrase, newVaultKeys, passphraseCost } from './keys';
import { catchUp } from './catchup';
import { LockGate, lockModeOf } from './gate';
import { checkBlobs } from './ops';
import { VaultKeys } from './vault-keys';
import { State } from './state';
import { Store } from './store';
import { VaultError, type CreateOptions, type KdfParams, type OpenOptions, type UnlockReport, type VaultApi, type VerifyReport } from './types';
import { VERSION, VERSION_2 } from './header';
import { AckTimer, catchUp2, deviceLockDir, format2On, HEADER_MAC_MARK, ingest2, noticesOf, verifySession2 } from './vault2';
import { m } from '../i18n/message';

/** Options a Vault keeps from open or create. */
type Kept = Pick<OpenOptions, 'lockPerCall' | 'releaseWhenLocked' | 'lockWaitMs' | 'format2' | 'ackDelayMs'>;

export class Vault extends VaultKeys implements VaultApi {
  /** vault.json and this device's memory of it (the rollback alarm). */
  protected readonly hf: HeaderFile;
  /** Opened as format 2 (the flag was on): its session is `session2`, its lock the device lock (vault2.ts). */
  readonly format2: boolean;
  /** When format-2 changes are confirmed (vault2.ts). */
  protected readonly acks: AckTimer;

  private constructor(
    readonly dir: string,
    header: Header,
    protected readonly stateDir: string,
    protected readonly journalLimit?: number,
    protected readonly fs: VaultFs = nodeFs,
    readonly readOnly = false,
    lock: Kept = {},
  ) {
    const v2 = format2On(lock);
    // Format 2: the device lock, and the folder's own lock while the vault is still format 1 (a v1 build stays excluded).
    const where = v2 ? () => [deviceLockDir(stateDir, header.vaultId), ...(this.header.version === VERSION ? [dir] : [])] : dir;
    super(new LockGate(where, lockModeOf(lock), lock.lockWaitMs, readOnly));
    this.format2 = v2;
    this.acks = new AckTimer(lock.ackDelayMs ?? 50, (fn) => this.task(fn), () => this.session2);
    this.hf = new HeaderFile(dir, header, stateDir, fs, readOnly, v2 ? VERSION_2 : VERSION);
    this.hf.onReplaced = () => this.gate.refresh();
    this.gate.catchUp = () => this.catchUp();
  }

  get vaultId(): string {
    return this.header.vaultId;
  }

  protected get header(): Header {
    return this.hf.header;
  }

  /** True when `dir` holds a vault, whole or damaged (its data without vault.json): never a place for a new one. */
  static async exists(dir: string, fsx: VaultFs = nodeFs): Promise<boolean> {
    return HeaderFile.exists(dir, fsx);
  }

  /**
   * Refuses to make a vault in `dir` unless it is new or empty: ALREADY_EXISTS
   * over a vault, DAMAGED over a vault that lost its vault.json, INVALID over
   * anything else. A new vault never deletes or overwrites a file.
   */
  static async mayCreateIn(dir: string, fsx: VaultFs = nodeFs): Promise<void> {
    const what = await io('errors:io.action.readFolder', () => HeaderFile.contents(dir, fsx));
    if (what === 'vault') throw new VaultError('ALREADY_EXISTS', m('errors:vault.alreadyHere'));
    if (what === 'headless') throw headerMissing();
    if (what === 'other') throw new VaultError('INVALID', m('errors:vault.folderNotEmpty'));
  }

  /**
   * Makes a new vault in `dir` (created if needed; ALREADY_EXISTS if it holds
   * one) and returns it unlocked with its recovery key, which is shown once.
   */
  static async create(dir: string, passphrase: string, opts: CreateOptions = {}): Promise<{ vault: Vault; recoveryKey: string }> {
    await cryptoReady();
    checkPassphrase(passphrase);
    const fsx = opts.fs ?? nodeFs;
    await Vault.mayCreateIn(dir, fsx);
    const { header, vmk, keys, recoveryKey } = await newVaultKeys(passphrase, opts.kdf ?? (await calibrateKdf()));
    await io('errors:io.action.createFolder', () => fsx.mkdir(dir));
    const state = State.empty(opts.historyDepth ?? 20, Date.now());
    const vault = new Vault(dir, header, opts.stateDir ?? defaultStateDir(), opts.journalLimit, fsx, false, { releaseWhenLocked: opts.releaseWhenLocked ?? false, lockWaitMs: opts.lockWaitMs, format2: opts.format2, ackDelayMs: opts.ackDelayMs });
    await vault.gate.take();
    try {
      // Again under the lock: nothing may have arrived since the first look.
      await Vault.mayCreateIn(dir, fsx);
      await io('errors:io.action.createFiles', () => HeaderFile.startCreating(dir, fsx));
      vault.begin(vmk, keys, await Store.initialize(dir, vaultIdBytes(header), keys, header.manifest, state, opts.journalLimit, { fs: fsx }), state);
      vault.unlockedWith = 'passphrase';
      // In the journal before vault.json exists, so no vault is ever without the mark that refuses a stripped MAC.
      await vault.internal.put(HEADER_MAC_MARK, new Uint8Array([1]));
      // vault.json last: until it exists there is no vault, so a crash here leaves nothing half-made.
      await vault.hf.create();
      await HeaderFile.doneCreating(dir, fsx);
    } catch (e) {
      await vault.close().catch(() => undefined);
      throw e;
    }
    vault.hf.hwm.note(vault.unlocked().state.gen);
    await vault.hf.noteSeen();
    // Format 2 makes a vault as format 1 (its tested, crash-safe creation), goes on in format 2, and upgrades it at once
    // (this computer's first write): while vault.json says format 1, another computer opening it would take format 1's
    // lock in the folder, and be refused while this one holds it. A crash or a failure (a full disk) before the upgrade
    // leaves a format-1 vault, made and unlocked, upgraded at its first change.
    if (vault.format2) {
      await vault.switchTo2();
      // Confirmed at once (§2.5): a copy taken right after creation shows the other computers this one.
      await vault.internal
        .device!(true)
        .then(() => vault.session2?.store.ack())
        .catch(() => undefined);
    }
    return { vault, recoveryKey };
  }

  /**
   * Opens the vault in `dir`, locked, taking its process lock (with
   * `lockPerCall` or `releaseWhenLocked` taking none yet: see OpenOptions). With
   * `readOnly` nothing in the folder is written, renamed, truncated or
   * removed (the kernel lock is taken, no lock record written), and every
   * change fails with INVALID.
   */
  static async open(dir: string, opts: OpenOptions = {}): Promise<Vault> {
    await cryptoReady();
    if (opts.lockPerCall && (opts.readOnly || opts.releaseWhenLocked)) throw new VaultError('INVALID', m('errors:vault.perCallOptions'));
    if (opts.releaseWhenLocked && opts.readOnly) throw new VaultError('INVALID', m('errors:vault.readOnlyOptions'));
    const fsx = opts.fs ?? nodeFs;
    const vault = new Vault(dir, await HeaderFile.read(dir, fsx, format2On(opts) ? VERSION_2 : VERSION), opts.stateDir ?? defaultStateDir(), opts.journalLimit, fsx, opts.readOnly ?? false, opts);
    if (vault.gate.mode !== 'open') return vault;
    // A read-only open still takes the kernel lock (a consistent view) but writes nothing into the folder.
    await vault.gate.take();
    // A creation killed after writing vault.json left its mark: the vault is whole, so the mark must go.
    // (Not in format 2: the root is shared, and a device writes nothing there but vault.json; the mark is left to its creator.)
    if (!vault.readOnly && !vault.format2) await HeaderFile.doneCreating(dir, fsx);
    return vault;
  }

  /** See catchup.ts; run by the gate each time a per-call vault takes its lock. */
  private async catchUp(): Promise<void> {
    const s2 = this.session2;
    if (s2) return catchUp2(s2, this.hf, () => this.lock());
    const s = this.session;
    if (!s) return;
    await catchUp(s, this.hf, { newStore: () => this.newStore(s.keys), isCurrent: () => this.session === s, lock: () => this.lock() });
  }

  passphraseKdf(): KdfParams {
    return passphraseCost(this.header);
  }

  isRolledBack(): boolean {
    return this.isUnlocked() && this.hf.rolledBack;
  }

  isRecoverySession(): boolean {
    return this.isUnlocked() && this.unlockedWith === 'recovery';
  }

  /** Format 2: how many ingests of this session made something new visible (0 otherwise). */
  arrivals(): number {
    return this.session2?.arrivals ?? 0;
  }

  /** Format 2: the notices of this session from the `from`th on (an ingest may add one: vault2.ts `noticesOf`). */
  notices(from = 0): Pick<UnlockReport, 'notices' | 'noticeKeys'> & { count: number } {
    return noticesOf(this.session2, from);
  }

  /**
   * Format 2: reads the other devices' folders again and applies what became
   * visible (and confirms this device's last changes). Returns what is still
   * arriving, one line per device. The window's follower (sync/follow.ts) calls it. When vault.json names other keys,
   * is not ours or went back, it fails and the vault locks (unless `lockOnFailure` is false: the caller locks it).
   */
  async ingest(opts: { lockOnFailure?: boolean } = {}): Promise<string[]> {
    // `lockOnFailure: false`: a caller with a lock of its own to run (the app's: turns stopped, drafts kept) runs it.
    const lock = opts.lockOnFailure === false ? () => undefined : () => this.lock();
    return this.task(async () => ingest2(this.unlocked2(), this.hf, this.readOnly, lock));
  }

  /**
   * Accepts the current (older) state of a vault reported as rolled back: lowers
   * this device's high-water mark to it and clears the alarm. Only this does.
   */
  async acceptRollback(): Promise<void> {
    await this.task(() => this.hf.accept(this.session2 ? this.session2.store.v1Gen : this.unlocked().state.gen));
  }

  /**
   * Locks and releases the vault; folds the journal into the manifest first so
   * the next unlock replays nothing (a per-call vault: under the lock, and only
   * if this process appended to it).
   */
  async close(): Promise<void> {
    this.acks.cancel();
    const s2 = this.session2;
    if (s2 && !this.readOnly && (this.gate.mode === 'call' ? s2.appended : s2.pending > 0)) {
      await this.task(async () => this.unlocked2().checkpoint()).catch(() => undefined);
    }
    const s = this.session;
    const due = s && !this.readOnly && (this.gate.mode === 'call' ? s.appended : s.store.pendingRecords > 0);
    if (due) {
      await this.task(async () => {
        const u = this.unlocked();
        if (u.store.pendingRecords > 0) await u.store.checkpoint(u.state);
      }).catch(() => undefined);
    }
    this.lock();
    // The running task and the lock's wipe settle before the kernel lock is let go.
    await this.queueTail;
    await s?.store.close();
    await s2?.store.o.marks.flush();
    await this.hf.hwm.flush();
    this.gate.release();
  }

  async verify(): Promise<VerifyReport> {
    return this.task(async () => {
      if (this.session2) return verifySession2(this.session2, this.hf);
      const s = this.unlocked();
      const problems = [...s.store.problems, ...(await s.store.verifySegments()), ...(await checkBlobs(s))];
      if (!(await this.hf.authenticOnDisk(s.vmk))) problems.unshift('vault.json: the vault header was modified (its MAC does not match)');
      if (this.hf.rolledBack) problems.unshift('vault: rolled back: older than the newest generation this device has seen (accept it with accept-rollback)');
      return { ok: problems.length === 0, problems: [...new Set(problems)] };
    });
  }
}
