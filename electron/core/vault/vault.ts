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
import { readVersion } from './history';
import { nodeFs, type VaultFs } from './fsio';
import { calibrateKdf, checkKdf } from './kdf';
import { checkPassphrase, newVaultKeys, passphraseCost, withPassphrase, storeKeys, unwrapWithPassphrase, unwrapWithRecoveryKey, wipeKeys } from './keys';
import { acquireLock, type HeldLock } from './lockfile';
import { checkBlobs, importBatch, internalStore, memoryOps, type ImportItem } from './ops';
import { rotate } from './rotate';
import { SessionQueue, type Session } from './session';
import { State, type Op } from './state';
import { Store, type SealedBlob, type StoreKeys } from './store';
import { emptyTrash, listTrash, restoreFromTrash } from './trash';
import { readOnlyError, VaultError, type ChangeSource, type CreateOptions, type SizeLimits, type FileMeta, type HistoryEntry, type InternalStore, type KdfParams, type MemoryOps, type OpenOptions, type Provenance, type TrashEntry, type VersionEntry, type UnlockReport, type VaultApi, type VerifyReport } from './types';

/** Set in the internal store once vault.json carries a MAC, so a header stripped of it is refused on any device. */
const HEADER_MAC_MARK = 'vault/header-mac';

export class Vault extends SessionQueue implements VaultApi {
  /** vault.json and this device's memory of it (the rollback alarm). */
  private readonly hf: HeaderFile;
  private releaseLock: HeldLock | undefined;
  /** How the current session was unlocked: only a recovery-key session may set a passphrase without the old one. */
  private unlockedWith: 'passphrase' | 'recovery' | undefined;
  readonly memory: MemoryOps;
  readonly internal: InternalStore;
  private readonly rawOps: MemoryOps;

  private constructor(
    readonly dir: string,
    header: Header,
    stateDir: string,
    private readonly journalLimit?: number,
    private readonly fs: VaultFs = nodeFs,
    readonly readOnly = false,
  ) {
    super();
    this.hf = new HeaderFile(dir, header, stateDir, fs, readOnly);
    this.rawOps = memoryOps(() => this.unlocked());
    const raw = this.rawOps;
    this.memory = {
      stat: raw.stat,
      list: raw.list,
      readFile: raw.readFile,
      totalSize: raw.totalSize,
      writeFile: (p, text, opts) => this.queue(() => raw.writeFile(p, text, opts)),
      mkdir: (p, source) => this.queue(() => raw.mkdir(p, source)),
      remove: (p, source, by) => this.queue(() => raw.remove(p, source, by)),
      rename: (a, b, source) => this.queue(() => raw.rename(a, b, source)),
    };
    this.internal = internalStore(() => this.unlocked(), (fn) => this.queue(fn));
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
    const what = await io('read the vault folder', () => HeaderFile.contents(dir, fsx));
    if (what === 'vault') throw new VaultError('ALREADY_EXISTS', 'A vault already exists here; unlock it instead.');
    if (what === 'headless') throw headerMissing();
    if (what === 'other') throw new VaultError('INVALID', 'The folder for the new vault is not empty; a vault is made only in a new or empty folder, so nothing was changed. Choose another folder, or move its files away first.');
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
    await io('create the vault folder', () => fsx.mkdir(dir));
    const state = State.empty(opts.historyDepth ?? 20, Date.now());
    const vault = new Vault(dir, header, opts.stateDir ?? defaultStateDir(), opts.journalLimit, fsx);
    vault.releaseLock = await acquireLock(dir);
    vault.hf.onReplaced = vault.releaseLock.refresh;
    try {
      // Again under the lock: nothing may have arrived since the first look.
      await Vault.mayCreateIn(dir, fsx);
      await io('create the vault files', () => HeaderFile.startCreating(dir, fsx));
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
    return { vault, recoveryKey };
  }

  /**
   * Opens the vault in `dir`, locked, taking its process lock. With
   * `readOnly` nothing in the folder is written, renamed, truncated or
   * removed (the kernel lock is taken, no lock record written), and every
   * change fails with INVALID.
   */
  static async open(dir: string, opts: OpenOptions = {}): Promise<Vault> {
    await cryptoReady();
    const fsx = opts.fs ?? nodeFs;
    const vault = new Vault(dir, await HeaderFile.read(dir, fsx), opts.stateDir ?? defaultStateDir(), opts.journalLimit, fsx, opts.readOnly ?? false);
    // A read-only open still takes the kernel lock (a consistent view) but writes nothing into the folder.
    vault.releaseLock = await acquireLock(dir, { readOnly: vault.readOnly });
    vault.hf.onReplaced = vault.releaseLock.refresh;
    // A creation killed after writing vault.json left its mark: the vault is whole, so the mark must go.
    if (!vault.readOnly) await HeaderFile.doneCreating(dir, fsx);
    return vault;
  }

  async unlock(passphrase: string): Promise<UnlockReport> {
    return this.unlockBy('passphrase', () => unwrapWithPassphrase(this.header, passphrase));
  }

  async unlockWithRecoveryKey(recoveryKey: string): Promise<UnlockReport> {
    return this.unlockBy('recovery', async () => unwrapWithRecoveryKey(this.header, recoveryKey));
  }

  private async unlockBy(via: 'passphrase' | 'recovery', unwrap: () => Promise<Uint8Array>): Promise<UnlockReport> {
    if (this.session) return { rolledBack: this.hf.rolledBack, damaged: [] };
    // A task still running from before a lock owns the vault files until it settles.
    await this.queueTail;
    if (this.session) return { rolledBack: this.hf.rolledBack, damaged: [] };
    await this.hf.checkSeen();
    return this.enter(await unwrap(), via);
  }

  passphraseKdf(): KdfParams {
    return passphraseCost(this.header);
  }

  isRolledBack(): boolean {
    return this.session !== undefined && this.hf.rolledBack;
  }

  isRecoverySession(): boolean {
    return this.session !== undefined && this.unlockedWith === 'recovery';
  }

  private async enter(vmk: Uint8Array, via: 'passphrase' | 'recovery'): Promise<UnlockReport> {
    if (this.header.mac !== undefined && !headerAuthentic(this.header, vmk)) {
      wipe(vmk);
      throw headerModified();
    }
    const keys = storeKeys(vmk);
    const store = new Store(this.dir, vaultIdBytes(this.header), keys, this.header.manifest, this.journalLimit, { fs: this.fs, readOnly: this.readOnly });
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
      await this.queue(() => this.hf.write(this.header, vmk));
      await this.internal.put(HEADER_MAC_MARK, new Uint8Array([1]));
    } else await this.hf.noteSeen();
    return { rolledBack: this.hf.rolledBack, damaged: [...store.problems] };
  }

  /**
   * Accepts the current (older) state of a vault reported as rolled back: lowers
   * this device's high-water mark to it and clears the alarm. Only this does.
   */
  async acceptRollback(): Promise<void> {
    await this.queue(() => this.hf.accept(this.unlocked().state.gen));
  }

  private begin(vmk: Uint8Array, keys: StoreKeys, store: Store, state: State): void {
    const session: Session = {
      vmk,
      keys,
      store,
      state,
      commit: async (op: Op, blob?: SealedBlob) => {
        const placed = await store.append(session.state, op, blob);
        session.state.apply(placed);
        this.hf.hwm.note(session.state.gen);
      },
      commitBatch: async (items) => {
        const placed = await store.appendBatch(session.state, items);
        session.state.apply(placed);
        this.hf.hwm.note(session.state.gen);
      },
      emit: (change) => this.emit(change),
    };
    this.session = session;
  }

  /** Locks and releases the vault; folds the journal into the manifest first so the next unlock replays nothing. */
  async close(): Promise<void> {
    const s = this.session;
    if (s && !this.readOnly && s.store.pendingRecords > 0) await this.queue(() => s.store.checkpoint(s.state)).catch(() => undefined);
    this.lock();
    // The running task and the lock's wipe settle before the kernel lock is let go.
    await this.queueTail;
    await s?.store.close();
    await this.hf.hwm.flush();
    this.releaseLock?.();
    this.releaseLock = undefined;
  }

  async changePassphrase(current: string, next: string, kdf?: KdfParams): Promise<void> {
    checkPassphrase(next);
    checkKdf(kdf);
    await this.queue(async () => {
      const vmk = await unwrapWithPassphrase(this.header, current);
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
    await this.queue(async () => {
      const s = this.unlocked();
      if (this.unlockedWith !== 'recovery') {
        throw new VaultError('INVALID', 'Setting a passphrase without the current one needs a vault unlocked with the recovery key; otherwise change it with the current passphrase.');
      }
      await this.replacePassphraseSlot(next, kdf, s.vmk);
    });
  }

  private async replacePassphraseSlot(next: string, kdf: KdfParams | undefined, vmk: Uint8Array): Promise<void> {
    await this.hf.write(await withPassphrase(this.header, next, kdf, vmk), vmk);
  }

  /** Throws BAD_PASSPHRASE unless `passphrase` opens this vault (and this session's key); wipes what it derives. */
  async verifyPassphrase(passphrase: string): Promise<void> {
    const vmk = await unwrapWithPassphrase(this.header, passphrase);
    const same = !this.session || sameBytes(vmk, this.session.vmk);
    wipe(vmk);
    if (!same) throw new VaultError('BAD_PASSPHRASE', 'Wrong passphrase. Nothing was changed.');
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
    return this.queue(async () => {
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

  /** Imports files as one change, all or none (see ops.ts `importBatch`); returns how many were written. */
  importFiles(items: ImportItem[], opts: Parameters<typeof importBatch>[2]): Promise<number> {
    return this.queue(() => importBatch(this.unlocked(), items, opts));
  }

  exclusive<T>(fn: (ops: MemoryOps) => Promise<T>): Promise<T> {
    return this.queue(() => fn(this.rawOps));
  }

  history(p: string): HistoryEntry[] {
    return this.unlocked().state.history(p);
  }

  /** The text of a version of `p` (see history.ts `readVersion`). */
  async readVersion(p: string, version: number): Promise<string> {
    return readVersion(this.unlocked(), this.rawOps, p, version);
  }

  /** Writes an old version's text as a new version, recorded as a restore of that version (queued); held to `limits` when given. */
  restore(p: string, version: number, source: ChangeSource, limits?: SizeLimits): Promise<FileMeta> {
    return this.queue(async () =>
      this.rawOps.writeFile(p, await this.readVersion(p, version), { mode: 'upsert', source, by: { kind: 'restore', fromVersion: version }, ...(limits ? { limits } : {}) }),
    );
  }

  /** Every kept version of `p` and its current one (last), each with who wrote it. */
  versions(p: string): VersionEntry[] {
    return this.unlocked().state.versions(p);
  }

  /** Who wrote the current version of memory file `p`, when recorded. */
  writer(p: string): Provenance | undefined {
    return this.unlocked().state.writer(p);
  }

  /** Deleted memories whose versions are still kept. */
  trash(): TrashEntry[] {
    return listTrash(this.unlocked());
  }

  /** Brings a deleted memory back (see trash.ts `restoreFromTrash`); queued; held to `limits` when given. */
  restoreDeleted(p: string, version?: number, limits?: SizeLimits): Promise<FileMeta> {
    return this.queue(() => restoreFromTrash(this.unlocked(), this.rawOps, (q, v) => this.readVersion(q, v), p, version, limits));
  }

  /** Permanently removes deleted memories' versions (see trash.ts `emptyTrash`); queued. */
  emptyTrash(paths?: string[]): Promise<number> {
    return this.queue(async () => {
      if (this.readOnly) throw readOnlyError();
      return emptyTrash(this.unlocked(), paths);
    });
  }

  historyDepth(): number {
    return this.unlocked().state.depth;
  }

  setHistoryDepth(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0 || n > 1000) return Promise.reject(new VaultError('INVALID', 'History depth must be a whole number from 0 to 1000.'));
    return this.queue(async () => this.unlocked().commit({ t: 'depth', n }));
  }

  async verify(): Promise<VerifyReport> {
    return this.queue(async () => {
      const s = this.unlocked();
      const problems = [...s.store.problems, ...(await s.store.verifySegments()), ...(await checkBlobs(s))];
      if (!(await this.hf.authenticOnDisk(s.vmk))) problems.unshift('vault.json: the vault header was modified (its MAC does not match)');
      if (this.hf.rolledBack) problems.unshift('vault: rolled back: older than the newest generation this device has seen (accept it with accept-rollback)');
      return { ok: problems.length === 0, problems: [...new Set(problems)] };
    });
  }
}
