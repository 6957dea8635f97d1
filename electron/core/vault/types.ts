/**
 * The vault's public shape. Everything above the vault (memory tool, chat loop,
 * conversation store, IPC handlers, CLI) programs against these types only.
 *
 * Paths in the memory namespace are virtual, always absolute, already validated
 * and NFC-normalised by the caller: `/memories` or `/memories/a/b.md`. The vault
 * never sees a host path from above and never returns one.
 */

import { m, type ErrorKey, type Keyed, type LocalMessage, type MessageParams } from '../i18n/message';
import type { VaultFs } from './fsio';

/** Why a vault operation failed. Messages never contain host paths or secrets. */
export type VaultErrorCode =
  | 'NOT_FOUND' // no such memory or directory
  | 'EXISTS' // destination already exists
  | 'NOT_A_FILE' // a directory where a file was needed
  | 'NOT_A_DIRECTORY' // a file where a directory was needed (e.g. parent of a new file)
  | 'CONFLICT' // expectedVersion did not match the current version
  | 'LOCKED' // the vault is locked: unlock first
  | 'BAD_PASSPHRASE' // wrong passphrase or recovery key; nothing changed
  | 'BAD_HEADER' // vault.json unreadable, unknown version, or KDF outside floor/ceiling
  | 'DAMAGED' // a blob, the manifest or the journal failed authentication / hash check
  | 'ROLLED_BACK' // generation below this device's high-water mark
  | 'IN_USE' // another live process holds the vault
  | 'NO_VAULT' // no vault at this directory
  | 'ALREADY_EXISTS' // create() on a directory that already holds a vault
  | 'LIMIT' // a size limit would be exceeded
  | 'INVALID' // bad argument (empty passphrase, bad key format, ...)
  | 'NEEDS_CONSENT' // the window asked for a change only the passphrase or main's own dialog may allow
  | 'DISK_FULL' // the disk (or the user's quota) is full: nothing was saved; free space and retry
  | 'KEY_REFUSED' // the Anthropic API refused an API key being saved (401/403); nothing was saved
  | 'KEY_UNCHECKED' // an API key being saved could not be checked (network down, server error); nothing was saved
  | 'IO'; // the OS failed; message is generic, never the OS text

export class VaultError extends Error {
  /** The virtual path (or internal key, or vault file name like `blobs/…`) concerned, if any. */
  readonly subject: string | undefined;
  /** The message's catalog key (`errors:…`) and parameters, when it was made with `m()`: the window says it in its language. */
  readonly key: string | undefined;
  readonly params: MessageParams | undefined;
  /** `message`: English text, or `m(key, params)` (core/i18n/message.ts), whose English becomes the message. */
  constructor(
    readonly code: VaultErrorCode,
    message: string | LocalMessage,
    subject?: string,
  ) {
    super(typeof message === 'string' ? message : message.text);
    this.name = 'VaultError';
    this.subject = subject;
    this.key = typeof message === 'string' ? undefined : message.key;
    this.params = typeof message === 'string' ? undefined : message.params;
  }

  /** The message as made with m(), to say inside another message or send on (English without a key is sent as it is). */
  get local(): LocalMessage {
    return this.key === undefined ? m('errors:plain', { text: this.message }) : { key: this.key as ErrorKey, text: this.message, ...(this.params ? { params: this.params } : {}) };
  }

  /**
   * This error with another code or subject, and its text passed through `reword` (the English and every
   * string parameter, nested ones too): how a project's scope says an internal path in its own terms.
   */
  with(opts: { code?: VaultErrorCode; subject?: string | undefined; reword?: (text: string) => string }): VaultError {
    const reword = opts.reword ?? ((t: string) => t);
    const params = (p: MessageParams): MessageParams =>
      Object.fromEntries(Object.entries(p).map(([n, v]) => [n, typeof v === 'string' ? reword(v) : typeof v === 'number' ? v : Array.isArray(v) ? v.map(keyed) : keyed(v)]));
    const keyed = (k: Keyed): Keyed => (k.params ? { key: k.key, params: params(k.params) } : k);
    const message = this.key === undefined ? reword(this.message) : { key: this.key as ErrorKey, text: reword(this.message), ...(this.params ? { params: params(this.params) } : {}) };
    return new VaultError(opts.code ?? this.code, message, 'subject' in opts ? opts.subject : this.subject);
  }
}

/** The error every change to a vault opened read-only fails with. */
export const readOnlyError = (): VaultError => new VaultError('INVALID', m('errors:vault.readOnly'));

export interface KdfParams {
  /** crypto_pwhash opslimit; floor 2, ceiling 10. */
  opslimit: number;
  /** crypto_pwhash memlimit in bytes; floor 64 MiB, ceiling 1 GiB. */
  memlimit: number;
}

export interface FileMeta {
  kind: 'file';
  path: string;
  /** Plaintext size in bytes (UTF-8). */
  size: number;
  /** ms since epoch */
  created: number;
  modified: number;
  /** Starts at 1, +1 on every write of this path. Used for conflict detection. */
  version: number;
}

export interface DirMeta {
  kind: 'dir';
  path: string;
  created: number;
  modified: number;
}

export type EntryMeta = FileMeta | DirMeta;

export interface HistoryEntry {
  /** The version number this content had when it was current (format 2: its ordinal, which a late concurrent version can shift). */
  version: number;
  size: number;
  modified: number;
  /** Format 2 only: the version's stable identity (`<device>:<seq>`, or `L:…` for a version written by format 1). */
  vid?: string;
  /** Format 2 only: the device that wrote it (`L` for format 1). */
  device?: string;
}

/** Who made a change; shown in the UI and passed to change listeners. */
export type ChangeSource = 'claude' | 'user' | 'cli' | 'system';

/**
 * Who wrote a version (or deleted a memory), kept with it in the manifest.
 * Records written before this existed carry none: show them as unknown.
 */
export type Provenance =
  | { kind: 'claude'; conversationId?: string; turn?: number }
  | { kind: 'user' }
  | { kind: 'import' }
  | { kind: 'restore'; fromVersion?: number }
  | { kind: 'cli' }
  /** An MCP client through `mnemo mcp` (directly or via the app), named as its `initialize` said (cleanClientName). */
  | { kind: 'mcp'; client: string }
  | { kind: 'system' };

/** One version of a memory, the current one included, with who wrote it. */
export interface VersionEntry extends HistoryEntry {
  /** Absent on versions written before provenance was recorded. */
  by?: Provenance;
  /** True for the memory's current text. */
  current: boolean;
}

/** A deleted memory whose versions are still kept (the trash). */
export interface TrashEntry {
  path: string;
  /** When it was deleted; absent if deleted before deletions were recorded. */
  deleted?: number;
  /** Who deleted it, when known. */
  by?: Provenance;
  /** Its kept versions, oldest first. */
  versions: VersionEntry[];
}

export type VaultChange =
  | { op: 'write'; path: string; version: number; source: ChangeSource; created: boolean }
  | { op: 'mkdir'; path: string; source: ChangeSource }
  | { op: 'delete'; path: string; source: ChangeSource }
  | { op: 'rename'; path: string; newPath: string; source: ChangeSource; by?: Provenance }
  | { op: 'lock' };

export interface UnlockReport {
  /**
   * The manifest generation is below this device's high-water mark (someone
   * restored an older copy), now or at an earlier unlock: it stays true at every
   * unlock until `acceptRollback()`.
   */
  rolledBack: boolean;
  /** Virtual paths whose blob is missing or fails its hash (found lazily; may be empty at unlock). */
  damaged: string[];
  /** Things done on open the user is told about (e.g. a pre-projects memory moved aside; see projects/legacy.ts). */
  notices?: string[];
  /** The same notices by catalog key, for the window's language (core/i18n/message.ts). */
  noticeKeys?: Keyed[];
  /** Format 2 only, when not empty: what is still arriving from other computers, one line per device. */
  waiting?: string[];
}

export interface VerifyReport {
  ok: boolean;
  /** One line per problem, each naming the memory path or vault file (`vault.json`, `journal…`, `blobs/…`). */
  problems: string[];
  /** Format 2 only, when not empty: what is still arriving from other computers (not a problem: `ok` stays true). */
  waiting?: string[];
}

export interface WriteOptions {
  /** 'create': fail with EXISTS if present. 'update': fail with NOT_FOUND if absent. 'upsert': either. */
  mode: 'create' | 'update' | 'upsert';
  /** If set, fail with CONFLICT unless the current version equals this. */
  expectedVersion?: number;
  source: ChangeSource;
  /** Who wrote it, kept with the version; defaults to what `source` says. */
  by?: Provenance;
  /**
   * Size bounds the write must keep (the memory tool's, see core/memory/limits.ts): LIMIT and nothing
   * written, checked before the text is encrypted, when the file or the vault's total would pass them.
   */
  limits?: SizeLimits;
}

/** The per-file and whole-vault bounds a write is held to, in UTF-8 bytes. */
export interface SizeLimits {
  maxFileBytes: number;
  maxVaultBytes: number;
}

/**
 * Operations on the memory namespace without taking the mutation queue. Only
 * valid inside `Vault.exclusive()`; the public mutating methods on the vault take
 * the queue themselves.
 */
export interface MemoryOps {
  stat(path: string): EntryMeta | undefined;
  /** `stat(path)?.kind`, without working out times (a folder's, in format 2, walks what it ever held). */
  kind(path: string): EntryMeta['kind'] | undefined;
  /**
   * Entries strictly below `dir`, down to `depth` levels (1 = children only;
   * Infinity = all), sorted by path with plain JS string comparison.
   */
  list(dir: string, depth: number): EntryMeta[];
  /** Decrypts and authenticates. DAMAGED (subject = path) if the blob fails. */
  readFile(path: string): Promise<string>;
  /** Creates missing parent directories. Durable before it resolves. */
  writeFile(path: string, text: string, opts: WriteOptions): Promise<FileMeta>;
  /** Creates the directory and missing parents; no error if it exists. */
  mkdir(path: string, source: ChangeSource): Promise<void>;
  /**
   * Removes a file or a directory recursively; the removed files' history is
   * kept (the trash) until the trash is emptied. `by` (default: from `source`)
   * is recorded as who deleted them.
   */
  remove(path: string, source: ChangeSource, by?: Provenance): Promise<void>;
  /**
   * Moves a file or directory (creating missing parents of newPath). EXISTS if newPath exists. `by` names who
   * moved it in the change event (the review inbox lists the move under that name); the journal keeps no author
   * for a move.
   */
  rename(oldPath: string, newPath: string, source: ChangeSource, by?: Provenance): Promise<void>;
  /** Total plaintext bytes of all current memory files. */
  totalSize(): number;
}

/** Versioned, encrypted key-value store for app data the memory tool can never reach. */
export interface InternalStore {
  get(key: string): Promise<Uint8Array | undefined>;
  getJSON<T>(key: string): Promise<T | undefined>;
  /** Durable before it resolves. Keys: `[a-z0-9._/-]{1,200}`, e.g. `settings`, `secrets/api-key`, `conversations/<id>`. */
  put(key: string, value: Uint8Array): Promise<void>;
  putJSON(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys that start with `prefix`, sorted. */
  keys(prefix: string): string[];
  /**
   * 2 when several computers may write this store at once (a format-2 session, docs/sync-design.md §3): values
   * two computers would both rewrite are kept one key per id (or per device) instead. 1 (or absent): one writer.
   */
  scheme?(): 1 | 2;
  /**
   * Scheme 2: this computer's device id, for the keys only it writes (`drafts/<device>/…`); `create` makes it (and
   * upgrades the vault) when this computer has not written to the vault yet, else that gives undefined. Scheme 1: undefined.
   */
  device?(create: boolean): Promise<string | undefined>;
  /**
   * Whether this computer may remove `key` as left over (a sweep, not the user's delete): scheme 2, only when every
   * current value of it was written here (or before the vault had several writers), since another computer's value
   * may be the first part of something still arriving. Scheme 1: always.
   */
  sweepable?(key: string): boolean;
  /** Scheme 2: what identifies the current value(s) of `key`, changing whenever any computer writes it. Scheme 1: undefined. */
  version?(key: string): string | undefined;
}

/**
 * Format 2 (the multi-device vault of docs/sync-design.md) is the default:
 * `format2` in the options, else on unless `MNEMO_FORMAT=1` is in the
 * environment (tests of format 1 itself). Off, a format-2 vault is refused
 * ("Update Mnemo"), as a format-1 build refuses it. On, a format-1 vault opens
 * as it is and is upgraded by its first change.
 */
export interface FormatOptions {
  format2?: boolean;
  /** Format 2: how long after a burst of changes their confirmation (`ack`) is written; 0 writes it with each change (tests). Default 50 ms. */
  ackDelayMs?: number;
}

export interface CreateOptions extends FormatOptions {
  /** Defaults to calibrated params (about 0.5-1 s here, never below the floor). */
  kdf?: KdfParams;
  /** Versions kept per memory file (default 20). */
  historyDepth?: number;
  /** Where this device keeps its high-water marks (defaults to a per-user state dir). */
  stateDir?: string;
  /** As in OpenOptions. */
  journalLimit?: number;
  /** As in OpenOptions (tests only). */
  fs?: VaultFs;
  /** As in OpenOptions: the new vault lets its lock go whenever it is locked. */
  releaseWhenLocked?: boolean;
  /** As in OpenOptions. */
  lockWaitMs?: number;
}

export interface OpenOptions extends FormatOptions {
  stateDir?: string;
  /** Journal records between manifest checkpoints (default 4096); small values are for tests. */
  journalLimit?: number;
  /** The file layer every vault read and write goes through (default: node:fs). Tests inject a crashing disk model. */
  fs?: VaultFs;
  /** Open for reading only: a shared kernel lock, no lock record, no tidying, no checkpoint on close; every change fails with INVALID. */
  readOnly?: boolean;
  /**
   * Hold the vault's lock per call, not per session, so several processes of
   * this device (`mnemo memory`, `mnemo mcp`, the app while locked) share the
   * vault (DESIGN.md §9b). `open` takes no lock; an unlock takes it for the
   * load only; `hold(fn)` takes it, catches up with what other processes
   * wrote, runs `fn` and lets it go; every change made outside a hold takes it
   * around itself alone. Synchronous reads (stat, list, history, keys) answer
   * from memory, as fresh as the last catch-up: wrap them in `hold` to read the
   * disk's state. Not with `readOnly`.
   */
  lockPerCall?: boolean;
  /**
   * For the app: hold the lock only while unlocked. `open` takes none; an
   * unlock takes it (waiting up to `lockWaitMs` for a per-call holder, IN_USE
   * past that) and re-reads vault.json; a lock or close lets it go once the
   * running change settles.
   */
  releaseWhenLocked?: boolean;
  /** How long `lockPerCall` and `releaseWhenLocked` wait for the lock before IN_USE (default 10 000 ms). */
  lockWaitMs?: number;
}

export type { VaultApi } from './vault-api';
