/**
 * The hybrid logical clock (docs/sync-design.md §2.1). A stamp is a pair
 * `[ms, c]`: wall-clock milliseconds and a counter for ops in the same
 * millisecond (a pair, because ms·2¹⁶ overflows a JS number).
 *
 * The clock only breaks ties between *concurrent* versions; which version
 * replaced which comes from each op's `par`. So a device whose clock is hours
 * off can never make a causally later write lose: at worst it decides which
 * of two concurrent heads is shown first.
 */
import { compareVid, type Vid } from './ids';

export type Hlc = readonly [ms: number, c: number];

export const HLC_ZERO: Hlc = [0, 0];
/** A remote stamp is adopted only up to this far ahead of our own wall clock. */
export const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

/** True for a well-formed stamp: two non-negative safe integers. */
export function isHlc(h: unknown): h is Hlc {
  return Array.isArray(h) && h.length === 2 && h.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
}

export function compareHlc(a: Hlc, b: Hlc): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

export function maxHlc(a: Hlc, b: Hlc): Hlc {
  return compareHlc(a, b) >= 0 ? a : b;
}

export function minHlc(a: Hlc, b: Hlc): Hlc {
  return compareHlc(a, b) <= 0 ? a : b;
}

/**
 * The total order on ops: `(h.ms, h.c, deviceId, seq)`. Two stamps are equal
 * only for one op (a device never reuses a seq), so sorting by this is
 * deterministic on every device.
 */
export function compareStamped(a: { h: Hlc; vid: Vid }, b: { h: Hlc; vid: Vid }): number {
  return compareHlc(a.h, b.h) || compareVid(a.vid, b.vid);
}

/** True if `a` orders after `b` (newer wins). */
export const newer = (a: { h: Hlc; vid: Vid }, b: { h: Hlc; vid: Vid }): boolean => compareStamped(a, b) > 0;

/**
 * One device's clock. It starts at the largest stamp in the loaded state
 * (never persisted on its own: every op carries its stamp) and moves forward
 * only: `tick` for each local op, `receive` for each remote op applied.
 */
export class Clock {
  private last: Hlc;

  constructor(
    start: Hlc = HLC_ZERO,
    private readonly now: () => number = Date.now,
  ) {
    this.last = start;
  }

  /** The stamp of the latest op made or seen (not a new one). */
  current(): Hlc {
    return this.last;
  }

  /** The stamp of a new local op: after every stamp made or seen, and at least the wall clock. */
  tick(): Hlc {
    const wall = Math.max(0, Math.floor(this.now()));
    this.last = wall > this.last[0] ? [wall, 0] : [this.last[0], this.last[1] + 1];
    return this.last;
  }

  /**
   * Takes a remote op's stamp into account, so the next local op orders after
   * it. A stamp more than MAX_AHEAD_MS ahead of our wall clock (a device whose
   * clock is far off, or a forged-looking one) is adopted only up to that cap:
   * our later ops may then order before it, which decides only ties between
   * concurrent versions, never which version replaced which.
   */
  receive(remote: Hlc): void {
    const cap: Hlc = [Math.max(0, Math.floor(this.now())) + MAX_AHEAD_MS, 0];
    this.last = maxHlc(this.last, minHlc(remote, cap));
  }
}
