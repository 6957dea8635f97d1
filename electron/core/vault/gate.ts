/**
 * When a vault holds its process lock (lockfile.ts). By default for as long as
 * it is open. The app holds it only while unlocked (`releaseWhenLocked`), and
 * `mnemo memory` and `mnemo mcp` only while a call runs (`lockPerCall`): so
 * several processes of one device share the vault, none keeping the others
 * out for long (DESIGN.md §9b).
 */
import { acquireLock, type HeldLock } from './lockfile';
import type { OpenOptions } from './types';

/** `open`: from open to close; `unlocked`: from unlock to lock; `call`: while a hold runs. */
export type LockMode = 'open' | 'unlocked' | 'call';

/** How long a per-call or while-unlocked vault waits for the lock before IN_USE. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;

/** The lock mode `opts` asks for. */
export function lockModeOf(opts: Pick<OpenOptions, 'lockPerCall' | 'releaseWhenLocked'>): LockMode {
  return opts.lockPerCall ? 'call' : opts.releaseWhenLocked ? 'unlocked' : 'open';
}

export class LockGate {
  private held: HeldLock | undefined;
  /** Holds running or waiting now: the lock stays taken while any does. */
  private holds = 0;
  /** True once the lock is taken and caught up with: a hold's `fn` may run. */
  private ready = false;
  private taking: Promise<void> | undefined;
  /**
   * Run once each time a `call` vault takes the lock, before any hold's `fn`:
   * brings the vault up to what other processes wrote while it was free.
   */
  catchUp: () => Promise<void> = async () => undefined;

  /**
   * `where`: the folders whose lock is taken (lockfile.ts), read at each take:
   * the vault folder for format 1; the device lock's folder in the state
   * folder for format 2, plus the vault folder while it is still format 1.
   */
  constructor(
    private readonly where: string | (() => string[]),
    readonly mode: LockMode,
    private readonly waitMs = DEFAULT_LOCK_WAIT_MS,
    private readonly readOnly = false,
  ) {}

  get isHeld(): boolean {
    return this.held !== undefined;
  }

  /** Takes the lock if not held: at once or IN_USE in `open` mode (as always); else waiting up to `waitMs`. */
  async take(): Promise<void> {
    if (this.held) return;
    const dirs = typeof this.where === 'string' ? [this.where] : this.where();
    const held: HeldLock[] = [];
    try {
      for (const dir of dirs) held.push(await acquireLock(dir, { readOnly: this.readOnly, waitMs: this.mode === 'open' ? 0 : this.waitMs }));
    } catch (e) {
      for (const h of held) h();
      throw e;
    }
    this.held = held.length === 1 ? held[0]! : Object.assign(() => held.forEach((h) => h()), { refresh: () => held.forEach((h) => h.refresh()) });
  }

  /** Lets the lock go now (a second call does nothing). */
  release(): void {
    const held = this.held;
    this.held = undefined;
    this.ready = false;
    held?.();
  }

  /** After vault.json was written anew, the held lock holds the new file too (lockfile.ts `refresh`). */
  refresh(): void {
    this.held?.refresh();
  }

  /**
   * Runs `fn` with the lock held. In `call` mode the first hold takes it
   * (waiting up to `waitMs`) and catches up, and the lock is let go when the
   * last hold running ends; a hold begun while another runs (a nested one,
   * or a change the vault makes inside one) runs straight away under it. In
   * the other modes the lock is held already: `fn` just runs.
   */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    if (this.mode !== 'call') return fn();
    this.holds++;
    try {
      while (!this.ready) await (this.taking ??= this.takeAndCatchUp().finally(() => (this.taking = undefined)));
      return await fn();
    } finally {
      if (--this.holds === 0) this.release();
    }
  }

  private async takeAndCatchUp(): Promise<void> {
    await this.take();
    await this.catchUp();
    this.ready = true;
  }
}
