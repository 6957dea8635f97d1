/** What an opened vault offers its callers (Vault, vault.ts, implements it); its parts' types are in types.ts. */
import type { DeviceEntry } from './devices';
import type { ConflictInfo } from './sync/conflicts2';
import type { ChangeSource, FileMeta, HistoryEntry, InternalStore, KdfParams, MemoryOps, SizeLimits, UnlockReport, VaultChange, VersionEntry, VerifyReport } from './types';

/**
 * An opened vault directory. Obtained with `Vault.create(dir, passphrase, opts)`
 * (→ `{ vault, recoveryKey }`, unlocked) or `Vault.open(dir, opts)` (locked; takes
 * the kernel lock on `.vault.lock`, see lockfile.ts). Static: `Vault.exists(dir)`
 * (a vault, whole or damaged) and `Vault.mayCreateIn(dir)`.
 */
export interface VaultApi {
  readonly dir: string;
  /** 32 hex chars; safe to show. */
  readonly vaultId: string;
  isUnlocked(): boolean;
  unlock(passphrase: string): Promise<UnlockReport>;
  /** The recovery key as printed at creation (groups of base32 with dashes). */
  unlockWithRecoveryKey(recoveryKey: string): Promise<UnlockReport>;
  /** Zeroes every key and cached plaintext. Idempotent. */
  lock(): void;
  /** lock() and release the process lock file. */
  close(): Promise<void>;
  /**
   * Re-wraps the master key only. BAD_PASSPHRASE if `current` is wrong. `kdf`
   * re-derives at another Argon2id cost (INVALID outside 2-10 passes, 64 MiB-1 GiB);
   * without it the current cost is kept.
   */
  changePassphrase(current: string, next: string, kdf?: KdfParams): Promise<void>;
  /**
   * Sets a new passphrase without the old one. Only in a session unlocked with
   * the recovery key (see isRecoverySession); otherwise INVALID.
   */
  setPassphrase(next: string, kdf?: KdfParams): Promise<void>;
  /** The passphrase slot's Argon2id cost. */
  passphraseKdf(): KdfParams;
  /** True while the vault is unlocked and its rollback alarm is up (until acceptRollback). */
  isRolledBack(): boolean;
  /** True when the vault is unlocked and was unlocked with the recovery key. */
  isRecoverySession(): boolean;
  /** Resolves if `passphrase` opens this vault; BAD_PASSPHRASE otherwise. Changes nothing. */
  verifyPassphrase(passphrase: string): Promise<void>;
  /**
   * A new recovery key that truly revokes the old one: checks the passphrase
   * (BAD_PASSPHRASE) and rotates the keys (as rotateKeys). Returns the new key, shown once.
   */
  newRecoveryKey(passphrase: string): Promise<string>;
  /**
   * Accepts a rollback reported by unlock (UnlockReport.rolledBack): lowers this
   * device's high-water mark to the vault's current generation and clears the
   * alarm, which otherwise stays raised at every unlock. Needs the vault unlocked;
   * callers should ask for the passphrase first (verifyPassphrase).
   */
  acceptRollback(): Promise<void>;
  /**
   * New master key; re-encrypts every blob, the manifest and the internal store.
   * Needs the current passphrase (to re-wrap the new key) and returns a new
   * recovery key (the old one no longer opens the vault), shown once.
   */
  rotateKeys(passphrase: string): Promise<string>;

  /**
   * Runs `fn` with the vault's lock held and the in-memory state caught up
   * with what other processes wrote (a `lockPerCall` vault: waits up to
   * `lockWaitMs` for the lock, then IN_USE; LOCKED if another process changed
   * the keys). Holds nest, and the vault's own calls inside `fn` run under it.
   * Other vaults hold their lock all along: `fn` just runs. It is not a mutation
   * queue: use `exclusive` for read-modify-write within this process.
   */
  hold<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` holding the vault's mutation queue (one per vault): read-modify-write without lost updates.
   * `confirmed`: format 2's own writes confirmed first, so that a copy of the files made in `fn` shows every one of
   * them to any computer (a backup).
   */
  exclusive<T>(fn: (ops: MemoryOps) => Promise<T>, opts?: { confirmed?: boolean }): Promise<T>;
  /** Same as MemoryOps, each mutating call queued on its own. */
  readonly memory: MemoryOps;
  readonly internal: InternalStore;

  history(path: string): HistoryEntry[];
  /** Every kept version of `path` and its current one (last), each with who wrote it (and, format 2, which device). */
  versions(path: string): VersionEntry[];
  readVersion(path: string, version: number): Promise<string>;
  /** Writes an old version's text as a new version (queued), held to `limits` when given. */
  restore(path: string, version: number, source: ChangeSource, limits?: SizeLimits): Promise<FileMeta>;
  historyDepth(): number;
  setHistoryDepth(n: number): Promise<void>;

  /** Authenticates header, manifest/journal and every blob. Needs the vault unlocked. */
  verify(): Promise<VerifyReport>;

  /** The computers that write to this vault, most recent first (devices.ts); empty when only this one does (format 1). */
  devices(): Promise<DeviceEntry[]>;
  /** Memories changed on two computers at once, and deletes that met an edit, to review (format 2); none in format 1. */
  conflicts(): ConflictInfo[];
  /** Gives a computer a name every computer shows (INVALID: unknown id, empty or too long a name, format 1). */
  renameDevice(id: string, name: string): Promise<void>;
  /** "Forget this computer": the others stop keeping replaced values for it (INVALID: this computer, unknown id, format 1). */
  forgetDevice(id: string): Promise<void>;
  /** Returns an unsubscribe function. */
  onChange(listener: (change: VaultChange) => void): () => void;
}
