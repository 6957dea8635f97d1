/**
 * How a Vault's keys come and change: the unlock (the master key unwrapped,
 * then a session entered under the lock: format 1 here, format 2 through
 * vault2.ts), passphrase changes, and key rotation (rotate.ts, sync/rotate2.ts).
 * Vault (vault.ts) adds opening, creating, catching up, closing and verifying.
 */
import { sameBytes, wipe } from './crypto';
import { headerAuthentic, headerModified, vaultIdBytes, VERSION, type Header } from './header';
import { HeaderFile } from './headerfile';
import type { VaultFs } from './fsio';
import { checkKdf } from './kdf';
import { checkPassphrase, withPassphrase, storeKeys, unwrapWithPassphrase, unwrapWithRecoveryKey, wipeKeys } from './keys';
import { rotate } from './rotate';
import { VaultContents } from './contents';
import type { Session } from './session';
import type { State, Op } from './state';
import { Store, type SealedBlob, type StoreKeys } from './store';
import { readOnlyError, VaultError, type KdfParams, type UnlockReport, type VaultChange } from './types';
import { announce2, dropRivals, rotateKeys2, currentKey2, followHeader, HEADER_MAC_MARK, openSession2, unlockReport2, upgradeHeader, type AckTimer } from './vault2';
import type { SyncSession } from './sync/session2';
import { readChain, wipeOld, type OldEpoch } from './sync/epochs';
import { keyThrough, type Rival } from './sync/rivals';
import { DEFAULT_JOURNAL_LIMIT } from './sync/session2';
import { m } from '../i18n/message';

export abstract class VaultKeys extends VaultContents {
  /** How the current session was unlocked: only a recovery-key session may set a passphrase without the old one. */
  protected unlockedWith: 'passphrase' | 'recovery' | undefined;
  abstract readonly dir: string;
  abstract readonly format2: boolean;
  abstract get vaultId(): string;
  protected abstract readonly hf: HeaderFile;
  protected abstract get header(): Header;
  protected abstract readonly stateDir: string;
  protected abstract readonly journalLimit?: number;
  protected abstract readonly fs: VaultFs;
  protected abstract readonly acks: AckTimer;

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

  protected newStore(keys: StoreKeys): Store {
    return new Store(this.dir, vaultIdBytes(this.header), keys, this.header.manifest, this.journalLimit, { fs: this.fs, readOnly: this.readOnly });
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
  protected async switchTo2(): Promise<void> {
    const s = this.session!;
    const vmk = s.vmk.slice();
    this.session = undefined;
    await this.end(s);
    await this.enter2(vmk, 'passphrase');
  }

  protected begin(vmk: Uint8Array, keys: StoreKeys, store: Store, state: State): void {
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
}
