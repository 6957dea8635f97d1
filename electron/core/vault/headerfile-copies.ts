/**
 * The copies of vault.json as an open vault handles them (format 2, where
 * several computers write it: sync/header-copies.ts): reading them, unwrapping
 * the master key from the best one, keeping the best authentic one alone once
 * unlocked (`settle`) and following them while open (`follow`), and the
 * rivals and older epochs among them (sync/rivals.ts). HeaderFile
 * (headerfile.ts) builds vault.json itself on this.
 */
import path from 'node:path';
import { wipe } from './crypto';
import { io } from './files';
import type { VaultFs } from './fsio';
import { headerAuthentic, headerModified, type Header } from './header';
import { compareSeen, seenOf, type HeaderSeen, type HighWaterMark } from './hwm';
import { copiesMark, HEADER_FILE, keepOnly, MAX_TRIED, keysChangedElsewhere, newPassphrase, passphraseChangedElsewhere, sortOut, type HeaderCopy } from './sync/header-copies';
import { VaultError } from './types';
import type { OldEpoch } from './sync/epochs';
import { findRivals, isOlderEpoch, keepRival, type KeyThrough, type Rival } from './sync/rivals';
import { storeKeys } from './keys';

/**
 * True when `h` sets another passphrase than the header `seen` (at the same counter: two changes crossed). By the slot's
 * salt; a record from before salts were kept compares whole headers.
 */
const otherPassphrase = (h: Header, seen: HeaderSeen): boolean => {
  const now = seenOf(h);
  return seen.salt === undefined ? now?.digest !== seen.digest : now?.salt !== seen.salt;
};

export abstract class HeaderFileCopies {
  /** Format 2: vault.json and its copies as last read, best first, and what they were (`copiesMark`). */
  private copies: HeaderCopy[] = [];
  protected mark: string | undefined;
  /** Format 2: the header this session was unlocked with (its passphrase still proves who the user is: changePassphrase). */
  unlockedWith: Header | undefined;

  protected abstract readonly dir: string;
  abstract header: Header;
  protected abstract readonly fs: VaultFs;
  protected abstract readonly readOnly: boolean;
  protected abstract bytes: Uint8Array | undefined;
  abstract readonly multi: boolean;
  abstract readonly hwm: HighWaterMark;
  abstract olderHeader: boolean;
  abstract onReplaced: () => void;
  protected abstract copiesOnDisk(): Promise<HeaderCopy[]>;
  abstract checkSeen(): Promise<void>;
  abstract noteSeen(typed?: boolean): Promise<void>;

  /** Format 2: vault.json and its copies, read again (best first; the mark remembers them). */
  protected async readCopies(): Promise<HeaderCopy[]> {
    const copies = await this.copiesOnDisk();
    this.copies = copies;
    this.mark = copiesMark(copies);
    return copies;
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
}
