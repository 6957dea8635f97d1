/**
 * What every vault operation goes through: the unlocked session (its keys,
 * store and state), the one mutation queue, the process lock (gate.ts), and
 * change events. Vault (vault.ts) builds its operations on this.
 */
import { wipe } from './crypto';
import type { LockGate } from './gate';
import { wipeKeys } from './keys';
import type { Unlocked } from './ops';
import type { StoreKeys } from './store';
import type { SyncSession } from './sync/session2';
import { VaultError, type VaultChange } from './types';
import { m } from '../i18n/message';

/** An unlocked vault: its master key, the keys derived from it, and what the ops need. */
export interface Session extends Unlocked {
  vmk: Uint8Array;
  keys: StoreKeys;
  /** True once this process appended to the journal in this session (a per-call vault checkpoints at close only then). */
  appended: boolean;
}

export abstract class SessionQueue {
  protected session: Session | undefined;
  /** The session of a vault opened as format 2 (docs/sync-design.md): set instead of `session`, never with it. */
  protected session2: SyncSession | undefined;
  protected queueTail: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(c: VaultChange) => void>();

  constructor(protected readonly gate: LockGate) {}

  /**
   * Runs `fn` with the vault's process lock held and, for a vault that holds
   * it per call, caught up with the disk first (see gate.ts `hold`). Holds
   * nest; changes the vault makes inside one run under it.
   */
  hold<T>(fn: () => Promise<T>): Promise<T> {
    return this.gate.hold(fn);
  }

  /** A change: queued, and run holding the lock (which a per-call vault takes around this change alone when no hold runs). */
  protected task<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue(() => this.hold(fn));
  }

  isUnlocked(): boolean {
    return this.session !== undefined || this.session2 !== undefined;
  }

  /** The format-2 session; LOCKED when there is none. */
  protected unlocked2(): SyncSession {
    if (!this.session2) throw new VaultError('LOCKED', m('errors:vault.locked'));
    return this.session2;
  }

  protected unlocked(): Session {
    if (!this.session) throw new VaultError('LOCKED', m('errors:vault.locked'));
    return this.session;
  }

  /**
   * Locks at once: every task not yet started fails with LOCKED. A task already
   * running (a write, a checkpoint, a rotation) holds this session's keys and
   * files, so they are wiped and closed when it settles, not under it (which
   * failed it half-way and blamed the memories for it).
   */
  lock(): void {
    const s = this.session;
    const s2 = this.session2;
    if (!s && !s2) return;
    this.session = undefined;
    this.session2 = undefined;
    if (s) void this.queue(() => this.end(s));
    // Its last records are confirmed first, except per call (each change was confirmed under the lock; another process may append now).
    if (s2) void this.queue(() => this.end2(s2, this.gate.mode !== 'call'));
    // A vault that holds its lock only while unlocked lets it go once the running change settles.
    if (this.gate.mode === 'unlocked') void this.queue(async () => (this.session ? undefined : this.gate.release()));
    this.emit({ op: 'lock' });
  }

  /** Wipes a session's keys and closes its files. */
  protected async end(s: Pick<Session, 'vmk' | 'keys' | 'store'>): Promise<void> {
    s.store.markEnded();
    wipe(s.vmk);
    wipeKeys(s.keys);
    await s.store.close();
  }

  /** Confirms (`ack`) and closes a format-2 session's files, then wipes its keys. */
  protected async end2(s: SyncSession, ack: boolean): Promise<void> {
    s.store.blobs.ended = true;
    await s.store.close(ack).catch(() => undefined);
    s.wipe();
  }

  /** One mutation queue per vault: each task starts after the previous one settles. */
  protected queue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queueTail.then(fn, fn);
    this.queueTail = run.catch(() => undefined);
    return run;
  }

  onChange(listener: (change: VaultChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(change: VaultChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // A listener's failure must not undo or hide a committed change.
      }
    }
  }
}
