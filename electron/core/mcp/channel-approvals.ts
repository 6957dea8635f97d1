/**
 * Memory changes other apps ask for while approval mode is on: each waits
 * here, under an id main mints, until the user decides in the window, the
 * time runs out, or the vault locks (then all are denied). The window is told
 * the whole list each time it changes, so a card survives a tab switch or a
 * reload of the page, and goes once decided elsewhere or timed out.
 */
import { randomBytes } from 'node:crypto';
import type { OutsideApproval } from '../../shared/channel';

export type { OutsideApproval } from '../../shared/channel';
export type Decision = 'allow' | 'deny' | 'timeout';

/** How long a change waits for the user before the other app is told it was not approved. */
export const APPROVAL_TIMEOUT_MS = 2 * 60_000;

interface Waiting {
  ask: OutsideApproval;
  settle(d: Decision): void;
}

export class ApprovalBoard {
  private readonly waiting = new Map<string, Waiting>();

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

  /** Holds a change until it is decided; resolves with the decision (never rejects). */
  ask(request: Omit<OutsideApproval, 'id' | 'asked' | 'expires'>): Promise<Decision> {
    const asked = (this.opts.now ?? Date.now)();
    const id = `out_${randomBytes(12).toString('hex')}`;
    const ask: OutsideApproval = { ...request, id, asked, expires: asked + this.timeoutMs };
    return new Promise<Decision>((resolve) => {
      const timer = setTimeout(() => settle('timeout'), this.timeoutMs);
      // A held change must not keep a process alive on its own.
      timer.unref();
      const settle = (d: Decision) => {
        clearTimeout(timer);
        if (!this.waiting.delete(id)) return;
        this.changed();
        resolve(d);
      };
      this.waiting.set(id, { ask, settle });
      this.changed();
    });
  }

  /** The user's answer to the change `id`; false if it no longer waits (decided, timed out, or denied at lock). */
  decide(id: string, allow: boolean): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    w.settle(allow ? 'allow' : 'deny');
    return true;
  }

  /** Denies every waiting change (the vault is locking). */
  denyAll(): void {
    for (const w of [...this.waiting.values()]) w.settle('deny');
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
