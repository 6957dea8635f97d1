/**
 * vault.json as an open vault keeps it: the current header, its replacement
 * (sealed with the next counter and a MAC), and what this device remembers of
 * it (hwm.ts): whether the vault was rolled back or its header altered behind
 * this device's back.
 */
import path from 'node:path';
import { cryptoReady, sameBytes, wipe } from './crypto';
import { io, readIfExists, writeFileDurable } from './files';
import type { VaultFs } from './fsio';
import { headerAuthentic, headerBytesAuthentic, headerModified, parseHeader, sealHeader, serializeHeader, VERSION, VERSION_2, type Header } from './header';
import { compareSeen, HighWaterMark, seenOf, type HeaderSeen } from './hwm';
import { copiesMark, HEADER_FILE, headerCopies, keepOnly, mainCopy, MAX_TRIED, keysChangedElsewhere, newPassphrase, passphraseChangedElsewhere, sortOut, type HeaderCopy } from './sync/header-copies';
import { doneCreating, folderContents, startCreating, vaultExists } from './folder';
import { readOnlyError, VaultError } from './types';
import type { OldEpoch } from './sync/epochs';
import { findRivals, isOlderEpoch, keepRival, type KeyThrough, type Rival } from './sync/rivals';
import { storeKeys } from './keys';
import { m } from '../i18n/message';


/**
 * True when `h` sets another passphrase than the header `seen` (at the same counter: two changes crossed). By the slot's
 * salt; a record from before salts were kept compares whole headers.
 */
const otherPassphrase = (h: Header, seen: HeaderSeen): boolean => {
  const now = seenOf(h);
  return seen.salt === undefined ? now?.digest !== seen.digest : now?.salt !== seen.salt;
};

/** The error for a vault folder whose vault.json is gone while its encrypted data is still there. */
export const headerMissing = (): VaultError =>
  new VaultError(
    'DAMAGED',
    m('errors:header.missing'),
    'vault.json',
  );

export class HeaderFile {
  /** This device's memory of the vault: its generation mark, the rollback alarm and the header last seen. */
  readonly hwm: HighWaterMark;
  /** The sticky rollback alarm as of this session's unlock. */
  rolledBack = false;
  /** The header is older than the one this device last saw (set before unlocking; reported as a rollback). */
  olderHeader = false;
  /** Called after vault.json is written anew (the process lock holds the new file: lockfile.ts). */
  onReplaced: () => void = () => undefined;
  /** vault.json's bytes as this process last read or wrote them: a catch-up compares them with the disk's. */
  private bytes: Uint8Array | undefined;
  /** Several computers may write vault.json (format 2): its copies count (sync/header-copies.ts). */
  readonly multi: boolean;
  /** Format 2: vault.json and its copies as last read, best first, and what they were (`copiesMark`). */
  private copies: HeaderCopy[] = [];
  private mark: string | undefined;
  /** Format 2: the header this session was unlocked with (its passphrase still proves who the user is: changePassphrase). */
  unlockedWith: Header | undefined;

  constructor(
    private readonly dir: string,
    public header: Header,
    stateDir: string,
    private readonly fs: VaultFs,
    private readonly readOnly: boolean,
    /** The highest format version this vault may be read at (2 with the format-2 flag). */
    readonly maxVersion: number = VERSION,
  ) {
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

  /** Format 2: vault.json and its copies, read again (best first; the mark remembers them). */
  private async readCopies(): Promise<HeaderCopy[]> {
    const copies = await this.copiesOnDisk();
    this.copies = copies;
    this.mark = copiesMark(copies);
    return copies;
  }

  private async copiesOnDisk(): Promise<HeaderCopy[]> {
    const bytes = await HeaderFile.readBytes(this.dir, this.fs);
    return io('errors:io.action.readHeader', () => headerCopies(this.dir, this.fs, mainCopy(parseHeader(bytes, this.maxVersion), bytes), this.maxVersion));
  }

  /** Format 2: the names of the copies of vault.json on disk now that `vmk` does not authenticate (reads only). */
  async foreignOnDisk(vmk: Uint8Array, older: readonly OldEpoch[] = []): Promise<string[]> {
    // vault.json itself unreadable: `verify` says so by its MAC check (authenticOnDisk).
    const copies = await this.copiesOnDisk().catch(() => undefined);
    // (A header of an older or rival epoch whose key is known is this vault's: sync/rivals.ts.)
    return copies ? sortOut(copies, vmk).foreign.filter((c) => !isOlderEpoch(c, older)).map((c) => c.name) : [];
  }

  /**
   * Format 2: removes the copies of vault.json that are headers of `older` epochs (rivals, sync/rivals.ts), once this
   * computer's keys file holds their keys: every computer then reads their epochs through it, and each copy cost a
   * key derivation at every unlock.
   */
  async dropOlder(older: readonly OldEpoch[]): Promise<void> {
    if (!this.multi || this.readOnly) return;
    const copies = await this.copiesOnDisk();
    for (const c of copies) if (c.name !== HEADER_FILE && isOlderEpoch(c, older)) await io('errors:io.action.writeHeader', () => this.fs.unlink(path.join(this.dir, c.name)));
    await this.readCopies();
  }

  /** Format 2: the copies of another epoch that `unwrap` (the secret just typed) opens: sync/rivals.ts. */
  async rivals(vmk: Uint8Array, unwrap: (h: Header) => Promise<Uint8Array>, known: readonly string[] = []): Promise<Rival[]> {
    if (!this.multi) return [];
    if (!this.copies.length) await this.readCopies();
    return findRivals(this.copies, this.header, vmk, unwrap, known);
  }

  /**
   * The master key, from the header `unwrap` opens. With one writer that is
   * vault.json, refused first if this device knows it was altered. With
   * several (format 2) it must be the best copy that is authentic: copies are
   * tried best first (each one key derivation, at most MAX_TRIED that fail,
   * and vault.json).
   * When one opens, the key tells which copies are ours; if a better one is,
   * the secret typed is a passphrase replaced on another computer, and if the
   * one that opened is not ours (a forged copy with real slots), the best
   * authentic one is tried next. A wrong passphrase where the header changed
   * since this device last saw it says so.
   */
  async unwrapBest(via: 'passphrase' | 'recovery', unwrap: (h: Header) => Promise<Uint8Array>, through?: KeyThrough): Promise<Uint8Array> {
    if (!this.multi) {
      await this.checkSeen();
      return unwrap(this.header);
    }
    const seen = await this.hwm.headerSeen();
    const copies = await this.readCopies();
    let failure: unknown;
    let failed = 0;
    for (let i = 0; i < copies.length; ) {
      const c = copies[i]!;
      // Past MAX_TRIED failures only vault.json is still tried: copies that open nothing (anyone who can write the
      // folder can make them, at any counter) must not shut out the header itself, nor the recovery key.
      if (failed >= MAX_TRIED && c.name !== HEADER_FILE) {
        i++;
        continue;
      }
      const cmp = compareSeen(c.header, seen, true);
      let vmk: Uint8Array | undefined;
      try {
        if (cmp !== 'modified') vmk = await unwrap(c.header);
      } catch (e) {
        // A copy that is not vault.json is anyone's file: whatever fails in it (no passphrase slot, a derivation at a
        // cost this computer cannot afford) fails that copy only, and the next is tried.
        if (!(e instanceof VaultError) || (e.code !== 'BAD_PASSPHRASE' && c.name === HEADER_FILE)) throw e;
        // A wrong secret says more than a copy refused unread.
        if (!(failure instanceof VaultError && failure.code === 'BAD_PASSPHRASE')) failure = e;
      }
      if (!vmk) {
        failure ??= headerModified();
        this.refused.add(c.digest);
        failed++;
        i++;
        continue;
      }
      const best = sortOut(copies, vmk).ours[0];
      // vault.json ranks first and is of another epoch: the secret opens only a rotation that lost to it (sync/rivals.ts).
      const main = copies.findIndex((x) => x.name === HEADER_FILE);
      if (best === c && main >= 0 && main < i && copies[main]!.header.manifest !== c.header.manifest && copies[main]!.header.mac !== undefined) {
        // Its keys file may hold vault.json's key (a rotation here crossed a passphrase change there): then vault.json
        // opens through it, once, and the rotation's epoch is read as a rival (sync/rivals.ts `keyThrough`).
        const win = copies[main]!;
        const key = through ? await through(c, vmk, win.header.manifest).catch(() => undefined) : undefined;
        if (key && headerAuthentic(win.header, key)) {
          this.openedThrough = { epoch: c.header.manifest, vmk, keys: storeKeys(vmk), name: c.name, digest: c.digest };
          this.header = win.header;
          this.olderHeader = compareSeen(win.header, seen, true) === 'older';
          this.seenBefore = seen;
          return key;
        }
        wipe(vmk, key);
        throw via === 'recovery' ? keysChangedElsewhere() : passphraseChangedElsewhere();
      }
      if (best === c) {
        this.header = c.header;
        this.olderHeader = cmp === 'older';
        this.seenBefore = seen;
        return vmk;
      }
      wipe(vmk);
      const at = best ? copies.indexOf(best) : -1;
      // A better copy is ours and did not open: this secret was replaced.
      if (at >= 0 && at < i) throw passphraseChangedElsewhere();
      if (at < 0) throw headerModified();
      i = at;
    }
    if (via === 'passphrase' && failure instanceof VaultError && failure.code === 'BAD_PASSPHRASE' && newPassphrase(copies[0]!.header, seen)) throw passphraseChangedElsewhere();
    throw failure;
  }

  /** Format 2: the rotation that lost, through whose keys file the last unlock opened vault.json (`unwrapBest`); taken once. */
  openedThrough: Rival | undefined;

  /** Format 2: copies an unlock tried and could not open with the secret typed (`follow` does not lock for them). */
  private readonly refused = new Set<string>();

  /** Format 2: the header this device remembered before this unlock (for `settle`). */
  private seenBefore: HeaderSeen | undefined;

  /**
   * Format 2, just unlocked with `vmk` (under the lock): keeps the best
   * authentic copy alone (sync/header-copies.ts `keepOnly`; not in a
   * read-only open) and notes which copies are not ours. DAMAGED when
   * vault.json itself is not ours. Returns true when this computer's last
   * passphrase change crossed one made on another computer and lost.
   */
  async settle(vmk: Uint8Array, rivals: readonly Rival[] = [], older: readonly OldEpoch[] = []): Promise<boolean> {
    // A vault just made (create) was not unlocked through unwrapBest.
    if (!this.copies.length) await this.readCopies();
    const { ours, foreign } = sortOut(this.copies, vmk);
    // A rival (another rotation made at once, sync/rivals.ts) as vault.json is kept under a name of its own first. A
    // header of an older epoch whose key the keys files hold (a passphrase change there that this rotation outranks)
    // is this vault's too: the winner goes over it, and its epoch is read through the keys files.
    const rival = (c: HeaderCopy) => rivals.some((r) => r.digest === c.digest) || isOlderEpoch(c, older);
    if (foreign.some((c) => c.name === HEADER_FILE && !rival(c)) || !ours.length) throw headerModified();
    if (!this.readOnly) await io('errors:io.action.writeHeader', () => keepRival(this.dir, this.fs, this.copies, rivals));
    const winner = ours[0]!;
    await this.keep(winner, ours);
    const seen = this.seenBefore;
    this.unlockedWith = winner.header;
    return seen !== undefined && winner.header.counter === seen.counter && otherPassphrase(winner.header, seen);
  }

  private async keep(winner: HeaderCopy, ours: HeaderCopy[]): Promise<void> {
    if (!this.readOnly) {
      await io('errors:io.action.writeHeader', () => keepOnly(this.dir, this.fs, winner, ours));
      this.copies = this.copies.filter((c) => !ours.includes(c) || c === winner).map((c) => (c === winner ? { ...c, name: HEADER_FILE } : c));
      if (winner.name !== HEADER_FILE) this.onReplaced();
    }
    this.header = winner.header;
    this.bytes = winner.bytes;
    this.mark = copiesMark(this.copies);
  }

  /**
   * Format 2, unlocked with `vmk`: when vault.json or its copies changed
   * since last read (a passphrase changed on another computer), takes the
   * best authentic one as `settle` does. Fails, for the caller to lock, when
   * vault.json names other keys (LOCKED), is not ours (DAMAGED), or went back
   * (ROLLED_BACK). Returns 'crossed' when this computer's header lost to one
   * of the same counter, 'changed' when a newer one was taken.
   */
  async follow(vmk: Uint8Array, failures: { keysChanged: () => Error; wentBack: () => Error }): Promise<'same' | 'changed' | 'crossed'> {
    const before = this.mark;
    let copies: HeaderCopy[];
    try {
      copies = await this.readCopies();
    } catch (e) {
      // vault.json caught half-written (an engine that writes in place): the session keeps the header it holds and
      // reads it again next time; `verify` says it is damaged if it stays so.
      if (e instanceof VaultError && e.key === 'errors:header.damaged') return 'same';
      throw e;
    }
    if (before === this.mark) return 'same';
    const main = copies.find((c) => c.name === HEADER_FILE)!;
    if (main.header.vaultId !== this.header.vaultId || main.header.manifest !== this.header.manifest) throw failures.keysChanged();
    const { ours, foreign } = sortOut(copies, vmk);
    if (foreign.some((c) => c.name === HEADER_FILE) || !ours.length) throw headerModified();
    // Another rotation made at once elsewhere whose header ranks first (sync/rivals.ts): the vault goes on under its
    // keys, unlocked again. Not for a copy an unlock here already tried and could not open (anyone's file).
    const top = copies[0]!;
    if (foreign.includes(top) && top.header.vaultId === this.header.vaultId && top.header.manifest !== this.header.manifest && top.header.mac !== undefined && !this.refused.has(top.digest)) throw failures.keysChanged();
    const winner = ours[0]!;
    const held = this.header;
    if ((winner.header.counter ?? 0) < (held.counter ?? 0)) throw failures.wentBack();
    const heldSeen = seenOf(held);
    const crossed = winner.header.counter === held.counter && heldSeen !== undefined && otherPassphrase(winner.header, heldSeen);
    await this.keep(winner, ours);
    // A lost change is remembered as this device's last header, so its next unlock says so again.
    if (!crossed) await this.noteSeen();
    return crossed ? 'crossed' : seenOf(winner.header)?.digest === seenOf(held)?.digest ? 'same' : 'changed';
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
