/**
 * An encrypted memory vault on disk (format v1; see store.ts for the layout and
 * header.ts for vault.json). Open it locked with `Vault.open`, or make one with
 * `Vault.create`; unlock with the passphrase or the recovery key. The session
 * and mutation queue are in session.ts, vault.json and the rollback alarm in
 * headerfile.ts, kept versions in history.ts, the trash in trash.ts.
 */
import { defaultStateDir } from '../app-paths';
import { cryptoReady, sameBytes, wipe } from './crypto';
import { io } from './files';
import { headerAuthentic, headerModified, vaultIdBytes, type Header } from './header';
import { HeaderFile, headerMissing } from './headerfile';
import { nodeFs, type VaultFs } from './fsio';
import { calibrateKdf, checkKdf } from './kdf';
import { checkPassphrase, newVaultKeys, passphraseCost, withPassphrase, storeKeys, unwrapWithPassphrase, unwrapWithRecoveryKey, wipeKeys } from './keys';
import { catchUp } from './catchup';
import { LockGate, lockModeOf } from './gate';
import { checkBlobs } from './ops';
import { rotate } from './rotate';
import { VaultContents } from './contents';
import type { Session } from './session';
import { State, type Op } from './state';
import { Store, type SealedBlob, type StoreKeys } from './store';
import { readOnlyError, VaultError, type CreateOptions, type KdfParams, type OpenOptions, type UnlockReport, type VaultApi, type VaultChange, type VerifyReport } from './types';
import { VERSION, VERSION_2 } from './header';
import { AckTimer, announce2, dropRivals, rotateKeys2, catchUp2, currentKey2, deviceLockDir, followHeader, format2On, HEADER_MAC_MARK, ingest2, noticesOf, openSession2, unlockReport2, upgradeHeader, verifySession2 } from './vault2';
import type { SyncSession } from './sync/session2';
import { readChain, wipeOld, type OldEpoch } from './sync/epochs';
import { keyThrough, type Rival } from './sync/rivals';
import { DEFAULT_JOURNAL_LIMIT } from './sync/session2';
import { m } from '../i18n/message';

/** Options a Vault keeps from open or create. */
type Kept = Pick<OpenOptions, 'lockPerCall' | 'releaseWhenLocked' | 'lockWaitMs' | 'format2' | 'ackDelayMs'>;

export class Vault extends VaultContents implements VaultApi {
  /** vault.json and this device's memory of it (the rollback alarm). */
  private readonly hf: HeaderFile;
  /** How the current session was unlocked: only a recovery-key session may set a passphrase without the old one. */
  private unlockedWith: 'passphrase' | 'recovery' | undefined;
  /** Opened as format 2 (the flag was on): its session is `session2`, its lock the device lock (vault2.ts). */
  readonly format2: boolean;
  /** When format-2 changes are confirmed (vault2.ts). */
  private readonly acks: AckTimer;

  private constructor(
    readonly dir: string,
    header: Header,
    private readonly stateDir: string,
    private readonly journalLimit?: number,
    private readonly fs: VaultFs = nodeFs,
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

  private get header(): Header {
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

  async unlock(passphrase: string): Promise<UnlockReport> {
    return this.unlockBy('passphrase', (h) => unwrapWithPassphrase(h, passphrase));
  }

  async unlockWithRecoveryKey(recoveryKey: string): Promise<UnlockReport> {
    return this.unlockBy('recovery', async (h) => unwrapWithRecoveryKey(h, recoveryKey));
  }

  private async unlockBy(via: 'passphrase' | 'recovery', unwrap: (h: Header) => Promise<Uint8Array>): Promise<UnlockReport> {
    if (this.isUnlocked()) return { rolledBack: this.hf.rolledBack, damaged: [] };
    // A task still running from before a lock owns the vault files until it settles.
    await this.queueTail;
    if (this.isUnlocked()) return { rolledBack: this.hf.rolledBack, damaged: [] };
    if (this.gate.mode === 'open') {
      for (let attempt = 1; ; attempt++) {
        const vmk = await this.hf.unwrapBest(via, unwrap, this.format2 ? keyThrough(this.fs, this.dir) : undefined);
        // Format 2: the lock does not hold other computers off: a copy of vault.json that arrived during the
        // derivation (a passphrase changed elsewhere) is tried, never overwritten by the settle.
        let changed: boolean;
        try {
          changed = this.format2 && (await this.hf.changedOnDisk()) !== undefined;
        } catch (e) {
          wipe(vmk);
          throw e;
        }
        if (!changed) return this.enter(vmk, via, unwrap);
        wipe(vmk);
        if (attempt === 3) throw new VaultError('IN_USE', m('errors:vault.keysChanging'));
      }
    }
    // The lock is free until now: vault.json is read again, and the key derived before the lock is taken, so no one waits for it.
    for (let attempt = 1; ; attempt++) {
      await this.hf.reread();
      const vmk = await this.hf.unwrapBest(via, unwrap, this.format2 ? keyThrough(this.fs, this.dir) : undefined);
      try {
        const report = await this.underLock(async () => {
          // vault.json changed during the derivation (a passphrase change or key rotation elsewhere): derive again from the new one.
          if (await this.hf.changedOnDisk()) return undefined;
          if (!this.readOnly && !this.format2) await HeaderFile.doneCreating(this.dir, this.fs);
          return this.enter(vmk, via, unwrap);
        });
        if (report) return report;
      } catch (e) {
        // Kept only by a session that began with it (TypeScript narrowed `session` at the top; it may exist by now).
        if ((this.session as Session | undefined)?.vmk !== vmk && (this.session2 as SyncSession | undefined)?.vmk !== vmk) wipe(vmk);
        throw e;
      }
      wipe(vmk);
      if (attempt === 3) throw new VaultError('IN_USE', m('errors:vault.keysChanging'));
    }
  }

  /** Runs an unlock's `fn` holding the lock: for its length per call, else for the session (let go if it begins none). */
  private async underLock<T>(fn: () => Promise<T>): Promise<T> {
    if (this.gate.mode === 'call') return this.hold(fn);
    await this.gate.take();
    try {
      return await fn();
    } finally {
      if (!this.isUnlocked()) this.gate.release();
    }
  }

  /** See catchup.ts; run by the gate each time a per-call vault takes its lock. */
  private async catchUp(): Promise<void> {
    const s2 = this.session2;
    if (s2) return catchUp2(s2, this.hf, () => this.lock());
    const s = this.session;
    if (!s) return;
    await catchUp(s, this.hf, { newStore: () => this.newStore(s.keys), isCurrent: () => this.session === s, lock: () => this.lock() });
  }

  private newStore(keys: StoreKeys): Store {
    return new Store(this.dir, vaultIdBytes(this.header), keys, this.header.manifest, this.journalLimit, { fs: this.fs, readOnly: this.readOnly });
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

  private async enter(vmk: Uint8Array, via: 'passphrase' | 'recovery', unwrap?: (h: Header) => Promise<Uint8Array>): Promise<UnlockReport> {
    if (this.header.mac !== undefined && !headerAuthentic(this.header, vmk)) {
      wipe(vmk);
      throw headerModified();
    }
    if (this.format2) return this.enter2(vmk, via, unwrap);
    const keys = storeKeys(vmk);
    const store = this.newStore(keys);
    let state: State;
    try {
      state = await store.load();
      // A MAC-less header on a vault that once had one: the MAC was stripped.
      if (this.header.mac === undefined && state.internal.has(HEADER_MAC_MARK)) throw headerModified();
    } catch (e) {
      await store.close();
      wipeKeys(keys);
      wipe(vmk);
      throw e;
    }
    await this.hf.noteUnlocked(state.gen);
    this.begin(vmk, keys, store, state);
    this.unlockedWith = via;
    if (this.header.mac === undefined && !this.readOnly) {
      // A header written before MACs: give it one now, and mark the vault so a stripped MAC is refused later.
      await this.task(() => this.hf.write(this.header, vmk));
      await this.internal.put(HEADER_MAC_MARK, new Uint8Array([1]));
    } else await this.hf.noteSeen();
    return { rolledBack: this.hf.rolledBack, damaged: [...store.problems] };
  }

  /** Unlocks as format 2 (vault2.ts): the v1 part read as L, every device's folder joined. */
  private async enter2(vmk: Uint8Array, via: 'passphrase' | 'recovery', unwrap?: (h: Header) => Promise<Uint8Array>): Promise<UnlockReport> {
    const limit = this.journalLimit ?? DEFAULT_JOURNAL_LIMIT;
    const host = {
      stateDir: this.stateDir,
      vaultId: this.vaultId,
      readOnly: this.readOnly,
      journalLimit: limit,
      counter: () => this.header.counter ?? 0,
      needsUpgrade: () => this.header.version === VERSION,
      upgradeHeader: (first: () => Promise<void>) => upgradeHeader(this.unlocked2(), this.hf, first),
      emit: (change: VaultChange) => this.emit(change),
      afterWrite: () => this.acks.after(this.session2, this.gate.mode === 'call'),
    };
    // vault.json's copies settled first (another computer's passphrase change made at the same time): the best one stays.
    // Another rotation made at once elsewhere, under the same passphrase: its epoch is read too (sync/rivals.ts).
    // (One may be the rotation through whose keys file vault.json just opened: hf.openedThrough.)
    const through = this.hf.openedThrough;
    this.hf.openedThrough = undefined;
    const rivals: Rival[] = through ? [through] : [];
    const failed = (e: unknown, more: readonly OldEpoch[] = []): never => {
      wipe(vmk);
      wipeOld([...rivals, ...more]);
      throw e;
    };
    if (unwrap) rivals.push(...(await this.hf.rivals(vmk, unwrap, through ? [through.epoch] : []).catch(failed)));
    // The older epochs this epoch's keys files name (a vault.json of one of them is outranked here, not tamper).
    const chain = await readChain(this.fs, this.dir, this.header, vmk).catch(failed);
    const crossed = await this.hf.settle(vmk, rivals, chain).catch((e: unknown) => failed(e, chain));
    const s2 = await openSession2({ dir: this.dir, fs: this.fs, header: this.header, stateDir: this.stateDir, readOnly: this.readOnly, journalLimit: limit, host, older: [...rivals, ...chain.filter((e) => !rivals.some((r) => r.epoch === e.epoch))] }, vmk).catch((e: unknown) => failed(e, chain));
    if (crossed) s2.store.notices.push(m('errors:notice.passphraseCrossed'));
    if (through) s2.store.notices.push(m('errors:notice.openedThrough'));
    else if (rivals.length) s2.store.notices.push(m('errors:notice.keysCrossed'));
    this.session2 = s2;
    this.unlockedWith = via;
    // (Not while the v1 part's key is still arriving: its generation, unknown here, is no rollback.)
    if (!s2.store.v1Hidden) await this.hf.noteUnlocked(s2.store.v1Gen);
    await this.hf.noteSeen(via === 'passphrase');
    await this.task(async () => {
      await announce2(s2);
      // Copies of vault.json from older or rival epochs go once this computer's keys file holds their keys.
      if (s2.store.older.length && !this.readOnly) await dropRivals(s2, this.hf).catch(() => undefined);
    });
    return unlockReport2(s2, this.hf.rolledBack);
  }

  /** The vault just made as format 1 goes on as format 2 with the same key (create). */
  private async switchTo2(): Promise<void> {
    const s = this.session!;
    const vmk = s.vmk.slice();
    this.session = undefined;
    await this.end(s);
    await this.enter2(vmk, 'passphrase');
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

  private begin(vmk: Uint8Array, keys: StoreKeys, store: Store, state: State): void {
    // The store and state are the session's at the time of the call: a per-call catch-up may replace them.
    const session: Session = {
      vmk,
      keys,
      store,
      state,
      appended: false,
      commit: async (op: Op, blob?: SealedBlob) => {
        const placed = await session.store.append(session.state, op, blob);
        session.appended = true;
        session.state.apply(placed);
        this.hf.hwm.note(session.state.gen);
      },
      commitBatch: async (items) => {
        const placed = await session.store.appendBatch(session.state, items);
        session.appended = true;
        session.state.apply(placed);
        this.hf.hwm.note(session.state.gen);
      },
      emit: (change) => this.emit(change),
    };
    this.session = session;
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

  async changePassphrase(current: string, next: string, kdf?: KdfParams): Promise<void> {
    checkPassphrase(next);
    checkKdf(kdf);
    await this.task(async () => {
      const vmk = await this.currentPassphrase(current);
      try {
        await this.replacePassphraseSlot(next, kdf, vmk);
      } finally {
        wipe(vmk);
      }
    });
  }

  /**
   * Sets a new passphrase without the old one: allowed only in a session
   * unlocked with the recovery key (the way back in after a forgotten passphrase).
   */
  async setPassphrase(next: string, kdf?: KdfParams): Promise<void> {
    checkPassphrase(next);
    checkKdf(kdf);
    await this.task(async () => {
      // Format 2 has no format-1 session: its key is the format-2 session's.
      const s2 = this.session2;
      const vmk = s2 ? s2.vmk : this.unlocked().vmk;
      if (this.unlockedWith !== 'recovery') {
        throw new VaultError('INVALID', m('errors:vault.setNeedsRecovery'));
      }
      // The change builds on vault.json as another computer may have left it (as changePassphrase: currentKey2).
      if (s2) await followHeader(s2, this.hf, () => this.lock());
      await this.replacePassphraseSlot(next, kdf, vmk);
    });
  }

  /** The master key `current` unwraps (format 2: vault2.ts `currentKey2`). */
  private async currentPassphrase(current: string): Promise<Uint8Array> {
    const s2 = this.session2;
    return s2 ? currentKey2(s2, this.hf, current, () => this.lock()) : unwrapWithPassphrase(this.header, current);
  }

  private async replacePassphraseSlot(next: string, kdf: KdfParams | undefined, vmk: Uint8Array): Promise<void> {
    // Format 2: a change like any (a v1 vault upgraded first, with the mark that refuses a stripped MAC).
    if (this.session2) await this.session2.nextVid();
    await this.hf.write(await withPassphrase(this.header, next, kdf, vmk), vmk);
  }

  /** Throws BAD_PASSPHRASE unless `passphrase` opens this vault (and this session's key); wipes what it derives. */
  async verifyPassphrase(passphrase: string): Promise<void> {
    const vmk = await unwrapWithPassphrase(this.header, passphrase);
    const same = !this.session || sameBytes(vmk, this.session.vmk);
    wipe(vmk);
    if (!same) throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.wrongPassphraseShort'));
  }

  /**
   * Revokes the recovery key: a new one only truly replaces the old one under a
   * new master key (the old slot, spliced back or restored with an old
   * vault.json, would still unwrap the old key), so this rotates the keys.
   */
  async newRecoveryKey(passphrase: string): Promise<string> {
    return this.rotateKeys(passphrase);
  }

  async rotateKeys(passphrase: string): Promise<string> {
    return this.task(async () => {
      if (this.session2) return this.rotate2(passphrase);
      const s = this.unlocked();
      if (this.readOnly) throw readOnlyError();
      await this.verifyPassphrase(passphrase);
      const result = await rotate(this.dir, this.header, s, passphrase, (h, vmk) => this.hf.write(h, vmk), this.journalLimit);
      // Locked while rotating: the rotation is done and durable, but the vault stays locked.
      const lockedMeanwhile = this.session !== s;
      this.session = undefined;
      await this.end(s);
      this.begin(result.vmk, result.keys, result.store, result.state);
      // vault.json now names the new epoch durably: only now may the old epoch's files go.
      result.store.named = true;
      await result.store.collect(result.live);
      this.hf.hwm.note(result.state.gen);
      if (lockedMeanwhile) {
        this.session = undefined;
        await this.end(result);
      }
      return result.recoveryKey;
    });
  }

  /** Format 2 (sync/rotate2.ts): a new epoch every computer follows; the old one is read until each has closed it. */
  private async rotate2(passphrase: string): Promise<string> {
    const s = this.unlocked2();
    const result = await rotateKeys2(s, this.hf, passphrase, { dir: this.dir, fs: this.fs, stateDir: this.stateDir, readOnly: this.readOnly, journalLimit: s.host.journalLimit, host: s.host }, () => this.lock());
    const lockedMeanwhile = this.session2 !== s;
    this.session2 = undefined;
    await this.end2(s, true);
    if (lockedMeanwhile) await this.end2(result.session, true);
    else {
      this.session2 = result.session;
      await announce2(result.session);
    }
    return result.recoveryKey;
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
