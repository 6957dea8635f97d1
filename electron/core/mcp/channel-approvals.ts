/**
 * Memory changes other apps ask for while approval mode is on: each waits
 * here, under an id main mints, until the user decides in the window, the
 * time runs out, the app that asked stops waiting (it cancelled, or its
 * connection closed: the card is withdrawn), or the vault locks (then each is
 * answered that the lock came first). The window is told
 * the whole list each time it changes, so a card survives a tab switch or a
 * reload of the page, and goes once decided elsewhere or timed out.
 */
import { randomBytes } from 'node:crypto';
import type { OutsideApproval } from '../../shared/channel';

export type { OutsideApproval } from '../../shared/channel';
export type Decision = 'allow' | 'deny' | 'timeout' | 'cancelled' | 'locked';

/** How long a change waits for the user before the other app is told it was not approved. */
export const APPROVAL_TIMEOUT_MS = 2 * 60_000;

interface Waiting {
  ask: OutsideApproval;
  settle(d: Decision): void;
}

export class ApprovalBoard {
  private readonly waiting = new Map<string, Waiting>();
  /** Set by lockAll until the channel serves again: a change that reaches the board while the vault locks is not shown. */
  private closed = false;

  constructor(
    private readonly opts: {
      /** Called with every pending change whenever the list changes. */
      onChange(pending: OutsideApproval[]): void;
      timeoutMs?: number;
      now?: () => number;
    },
  ) {}

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? APPROVAL_TIMEOUT_MS;
  }

  /**
   * Holds a change until it is decided; resolves with the decision (never rejects). It waits the board's time,
   * or until `deadline` if that comes sooner (the asking app's client stops waiting then); `signal` withdraws it.
   */
  ask(request: Omit<OutsideApproval, 'id' | 'asked' | 'expires'>, opts: { signal?: AbortSignal; deadline?: number } = {}): Promise<Decision> {
    if (opts.signal?.aborted) return Promise.resolve('cancelled');
    // The lock began while this change was on its way (main waits for the call before the keys go): no card the
    // user could still Allow while the vault locks.
    if (this.closed) return Promise.resolve('locked');
    const asked = (this.opts.now ?? Date.now)();
    const id = `out_${randomBytes(12).toString('hex')}`;
    const expires = Math.min(asked + this.timeoutMs, opts.deadline ?? Infinity);
    const ask: OutsideApproval = { ...request, id, asked, expires };
    return new Promise<Decision>((resolve) => {
      const timer = setTimeout(() => settle('timeout'), Math.max(0, expires - asked));
      // A held change must not keep a process alive on its own.
      timer.unref();
      const withdraw = () => settle('cancelled');
      const settle = (d: Decision) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', withdraw);
        if (!this.waiting.delete(id)) return;
        this.changed();
        resolve(d);
      };
      this.waiting.set(id, { ask, settle });
      opts.signal?.addEventListener('abort', withdraw, { once: true });
      this.changed();
    });
  }

  /** The user's answer to the change `id`; false if it no longer waits (decided, timed out, withdrawn, or ended by a lock). */
  decide(id: string, allow: boolean): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    w.settle(allow ? 'allow' : 'deny');
    return true;
  }

  /** Ends every waiting change unmade, and answers any asked after it the same way until `reopen`: the vault is locking. */
  lockAll(): void {
    this.closed = true;
    for (const w of [...this.waiting.values()]) w.settle('locked');
  }

  /** Takes changes again (the vault is unlocked and the channel serves). */
  reopen(): void {
    this.closed = false;
  }

  /** Every waiting change, oldest first. */
  list(): OutsideApproval[] {
    return [...this.waiting.values()].map((w) => w.ask);
  }

  private changed(): void {
    try {
      this.opts.onChange(this.list());
    } catch {
      // A window that cannot be told (closed, say) must not break a decision.
    }
  }
}
