/** Identities and the hybrid logical clock of format v2 (docs/sync-design.md §2.1). */
import { describe, expect, it } from 'vitest';
import { Clock, compareHlc, compareStamped, isHlc, MAX_AHEAD_MS, type Hlc } from '../../../electron/core/vault/sync/hlc';
import { compareVid, deviceOf, formatLVid, formatVid, isVid, parseVid } from '../../../electron/core/vault/sync/ids';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

describe('vids', () => {
  it('format and parse round-trip for a device and for the v1 pseudo-device L', () => {
    expect(formatVid(A, 7)).toBe(`${A}:7`);
    expect(parseVid(`${A}:7`)).toEqual({ dev: A, seq: 7 });
    expect(parseVid(formatLVid('/memories/a:b.md'))).toEqual({ dev: 'L', token: '/memories/a:b.md' });
    expect(deviceOf(formatVid(B, 1))).toBe(B);
  });

  it('refuses malformed vids: bad device, zero, leading zeros, signs, fractions, huge or missing seqs', () => {
    for (const bad of [`${A}:0`, `${A}:01`, `${A}:-1`, `${A}:1.5`, `${A}:`, `${A}:99999999999999999`, `${A.toUpperCase()}:1`, `abc:1`, 'L:', A, '', `${A}:1 `]) {
      expect(parseVid(bad), bad).toBeUndefined();
      expect(isVid(bad)).toBe(false);
    }
    expect(parseVid(42)).toBeUndefined();
    expect(() => formatVid('x', 1)).toThrow();
    expect(() => formatVid(A, 0)).toThrow();
    expect(() => formatVid(A, 2 ** 53)).toThrow();
  });

  it('orders by device, then by seq as a number (not as text)', () => {
    const sorted = [`${B}:1`, `${A}:10`, `${A}:9`, formatLVid('x'), `${A}:2`].sort(compareVid);
    expect(sorted).toEqual(['L:x', `${A}:2`, `${A}:9`, `${A}:10`, `${B}:1`]);
  });
});

describe('the hybrid logical clock', () => {
  it('ticks past the wall clock and past itself within one millisecond', () => {
    let now = 1000;
    const c = new Clock([0, 0], () => now);
    expect(c.tick()).toEqual([1000, 0]);
    expect(c.tick()).toEqual([1000, 1]);
    now = 999; // the wall clock stepped back
    expect(c.tick()).toEqual([1000, 2]);
    now = 2000;
    expect(c.tick()).toEqual([2000, 0]);
  });

  it('orders its next tick after a remote stamp it observed, even one from a clock ahead', () => {
    const c = new Clock([0, 0], () => 1000);
    c.receive([5000, 3]);
    expect(compareHlc(c.tick(), [5000, 3])).toBeGreaterThan(0);
  });

  it('adopts a remote stamp only up to 24 h ahead of its own wall clock', () => {
    const c = new Clock([0, 0], () => 1000);
    c.receive([1000 + MAX_AHEAD_MS * 10, 0]);
    expect(c.current()).toEqual([1000 + MAX_AHEAD_MS, 0]);
    expect(c.tick()).toEqual([1000 + MAX_AHEAD_MS, 1]);
  });

  it('starts from the largest stamp of the loaded state and never goes back', () => {
    const c = new Clock([9000, 4], () => 10);
    expect(c.tick()).toEqual([9000, 5]);
    c.receive([1, 1]);
    expect(c.tick()).toEqual([9000, 6]);
  });

  it('orders ops by (ms, c, device, seq)', () => {
    const ops: Array<{ h: Hlc; vid: string }> = [
      { h: [2, 0], vid: `${A}:1` },
      { h: [1, 5], vid: `${B}:3` },
      { h: [1, 5], vid: `${A}:4` },
      { h: [1, 5], vid: `${A}:3` },
    ];
    expect([...ops].sort(compareStamped).map((o) => o.vid)).toEqual([`${A}:3`, `${A}:4`, `${B}:3`, `${A}:1`]);
  });

  it('recognises well-formed stamps only', () => {
    expect(isHlc([1, 2])).toBe(true);
    for (const bad of [[1], [1, 2, 3], [-1, 0], [1.5, 0], ['1', 0], null, {}]) expect(isHlc(bad)).toBe(false);
  });
});
