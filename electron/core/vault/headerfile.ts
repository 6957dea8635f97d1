/**
 * vault.json as an open vault keeps it: the current header, its replacement
 * (sealed with the next counter and a MAC), and what this device remembers of
 * it (hwm.ts): whether the vault was rolled back or its header altered behind
 * this device's back. Its copies (format 2) are handled in headerfile-copies.ts.
 */
import path from 'node:path';
import { cryptoReady, sameBytes } from './crypto';
import { io, readIfExists, writeFileDurable } from './files';
import type { VaultFs } from './fsio';
import { headerBytesAuthentic, headerModified, parseHeader, sealHeader, serializeHeader, VERSION, VERSION_2, type Header } from './header';
import { compareSeen, HighWaterMark, seenOf } from './hwm';
import { HEADER_FILE, headerCopies, mainCopy, type HeaderCopy } from './sync/header-copies';
import { HeaderFileCopies } from './headerfile-copies';
import { doneCreating, folderContents, startCreating, vaultExists } from './folder';
import { readOnlyError, VaultError } from './types';
import { m } from '../i18n/message';


/** The error for a vault folder whose vault.json is gone while its encrypted data is still there. */
export const headerMissing = (): VaultError =>
  new VaultError(
    'DAMAGED',
    m('errors:header.missing'),
    'vault.json',
  );

export class HeaderFile extends HeaderFileCopies {
  /** This device's memory of the vault: its generation mark, the rollback alarm and the header last seen. */
  readonly hwm: HighWaterMark;
  /** The sticky rollback alarm as of this session's unlock. */
  rolledBack = false;
  /** The header is older than the one this device last saw (set before unlocking; reported as a rollback). */
  olderHeader = false;
  /** Called after vault.json is written anew (the process lock holds the new file: lockfile.ts). */
  onReplaced: () => void = () => undefined;
  /** vault.json's bytes as this process last read or wrote them: a catch-up compares them with the disk's. */
  protected bytes: Uint8Array | undefined;
  /** Several computers may write vault.json (format 2): its copies count (sync/header-copies.ts). */
  readonly multi: boolean;

  constructor(
    protected readonly dir: string,
    public header: Header,
    stateDir: string,
    protected readonly fs: VaultFs,
    protected readonly readOnly: boolean,
    /** The highest format version this vault may be read at (2 with the format-2 flag). */
    readonly maxVersion: number = VERSION,
  ) {
    super();
    this.hwm = new HighWaterMark(stateDir, header.vaultId);
    this.multi = maxVersion >= VERSION_2;
  }

  /** What `dir` holds (folder.ts). */
  static contents = folderContents;
  /** True when `dir` holds a vault, whole or damaged (folder.ts). */
  static exists = vaultExists;
  /** Before a new vault's first file (folder.ts). */
  static startCreating = startCreating;
  /** Once its vault.json is written (folder.ts). */
  static doneCreating = doneCreating;

  /** The header of the vault in `dir`; NO_VAULT when there is none, DAMAGED when only vault.json is gone. */
  static async read(dir: string, fsx: VaultFs, maxVersion: number = VERSION): Promise<Header> {
    const bytes = await HeaderFile.readBytes(dir, fsx);
    // Parsing hashes with libsodium, whose WebAssembly loads asynchronously: a process that reads a header before
    // opening any vault (`mnemo memory` and `mnemo mcp` looking for the app's channel) may get here before it has.
    await cryptoReady();
    return parseHeader(bytes, maxVersion);
  }

  private static async readBytes(dir: string, fsx: VaultFs): Promise<Uint8Array> {
    const bytes = await io('errors:io.action.readHeader', () => readIfExists(fsx, path.join(dir, HEADER_FILE)));
    if (!bytes) {
      if ((await folderContents(dir, fsx).catch(() => 'other')) === 'headless') throw headerMissing();
      throw new VaultError('NO_VAULT', m('errors:vault.none'));
    }
    return bytes;
  }

  /** Reads vault.json again (another process may have changed it since the vault was opened). */
  async reread(): Promise<void> {
    const bytes = await HeaderFile.readBytes(this.dir, this.fs);
    this.header = parseHeader(bytes, this.maxVersion);
    this.bytes = bytes;
  }

  /**
   * vault.json as on disk now, when it differs from what this process last
   * read or wrote (another process wrote it); undefined when unchanged. Take
   * it with `adopt`.
   */
  async changedOnDisk(): Promise<{ header: Header; bytes: Uint8Array } | undefined> {
    if (this.multi) {
      const before = this.mark;
      const copies = await this.readCopies();
      return before === this.mark ? undefined : { header: copies[0]!.header, bytes: copies[0]!.bytes };
    }
    const bytes = await HeaderFile.readBytes(this.dir, this.fs);
    if (this.bytes && sameBytes(bytes, this.bytes)) return undefined;
    return { header: parseHeader(bytes, this.maxVersion), bytes };
  }

  /** Takes a header another process wrote (see changedOnDisk) as this vault's. */
  adopt(next: { header: Header; bytes: Uint8Array }): void {
    this.header = next.header;
    this.bytes = next.bytes;
  }

  protected async copiesOnDisk(): Promise<HeaderCopy[]> {
    const bytes = await HeaderFile.readBytes(this.dir, this.fs);
    return io('errors:io.action.readHeader', () => headerCopies(this.dir, this.fs, mainCopy(parseHeader(bytes, this.maxVersion), bytes), this.maxVersion));
  }

  /** Writes a new vault's header as vault.json, durably. */
  async create(): Promise<void> {
    try {
      const bytes = serializeHeader(this.header);
      await io('errors:io.action.writeHeader', () => writeFileDurable(this.fs, path.join(this.dir, HEADER_FILE), bytes));
      this.bytes = bytes;
    } finally {
      this.onReplaced();
    }
  }

  /** Refuses, before any slow key derivation, a header this device knows to be altered; notes an older one (a rollback). */
  async checkSeen(): Promise<void> {
    const seen = compareSeen(this.header, await this.hwm.headerSeen());
    if (seen === 'modified') throw headerModified();
    this.olderHeader = seen === 'older';
  }

  /** Notes the unlocked vault's generation, and whether it is to be reported as rolled back (see hwm.ts `rolledBack`). */
  async noteUnlocked(gen: number): Promise<void> {
    // The alarm is sticky: the mark is never lowered here, and once seen the rollback is
    // reported at every unlock until the user accepts it (acceptRollback).
    this.rolledBack = await this.hwm.rolledBack(gen, this.olderHeader);
  }

  /**
   * Remembers the current header on this device, unless it is older than the one seen (a rollback not yet accepted);
   * `typed` when its passphrase is the one the user just gave here (not a header taken from another computer).
   */
  async noteSeen(typed = false): Promise<void> {
    if (!this.olderHeader) await this.remember(typed);
  }

  private async remember(typed: boolean): Promise<void> {
    const seen = seenOf(this.header);
    if (!seen) return;
    const before = await this.hwm.headerSeen();
    await this.hwm.noteHeader({ ...seen, typed: typed ? seen.salt : (before?.typed ?? before?.salt ?? seen.salt) });
  }

  /** Accepts the vault at generation `gen` as it is: lowers the mark to it and clears the alarm. */
  async accept(gen: number): Promise<void> {
    await io('errors:io.action.acceptRollback', () => this.hwm.accept(gen, seenOf(this.header)));
    this.olderHeader = false;
    this.rolledBack = false;
  }

  /**
   * Writes vault.json with the next counter (`keepCounter`: the same one, for the upgrade to format 2, which changes no
   * slot and must lose to any change made elsewhere meanwhile) and a MAC under `vmk`, and remembers it on this device.
   */
  async write(next: Header, vmk: Uint8Array, keepCounter = false): Promise<void> {
    if (this.readOnly) throw readOnlyError();
    const before = this.header;
    const previous = Math.max(this.header.counter ?? 0, next.counter ?? 0);
    const sealed = sealHeader(next, vmk, keepCounter && this.header.counter !== undefined ? this.header.counter - 1 : previous);
    const bytes = serializeHeader(sealed);
    const [was, now] = [seenOf(before), seenOf(sealed)];
    if (this.multi && was && now && was.salt !== now.salt) {
      // Said first: if the write below fails after vault.json is replaced, either passphrase is one the user gave here.
      const seen = await this.hwm.headerSeen();
      await this.hwm.noteHeader({ ...was, typed: now.salt, typedBefore: seen?.typed ?? seen?.salt ?? was.salt });
    }
    try {
      await io('errors:io.action.writeHeader', () => writeFileDurable(this.fs, path.join(this.dir, HEADER_FILE), bytes));
    } finally {
      this.onReplaced();
    }
    this.header = sealed;
    this.bytes = bytes;
    // The passphrase just set is the one this session's user knows now.
    if (this.multi && this.unlockedWith) this.unlockedWith = sealed;
    // A new passphrase slot is one the user just set here; the same one (the upgrade to format 2) changes nothing they know.
    await this.remember(now?.salt !== was?.salt);
  }

  /** True when vault.json on disk still carries a MAC that authenticates under `vmk`. */
  async authenticOnDisk(vmk: Uint8Array): Promise<boolean> {
    return headerBytesAuthentic(await readIfExists(this.fs, path.join(this.dir, HEADER_FILE)), vmk, this.maxVersion);
  }
}
