/**
 * The identities that merges depend on (docs/sync-design.md §2.1):
 * - a device id: 16 random bytes as 32 lower-case hex characters, or `L`, the
 *   frozen pseudo-device a v1 vault is read as (§8);
 * - a vid `"<deviceId>:<seq>"`: the identity of one op, and so of the version,
 *   tombstone or tag it made. `seq` counts a device's ops from 1 and never
 *   restarts (not even in a new key epoch: "decided in stage 1" in the doc), so
 *   a vid names one op forever. L's vids carry a token made from what v1 kept
 *   (a blob id, a path) instead of a number: see fromV1.
 */

/** A device's id: 32 lower-case hex characters. */
export const DEVICE_ID = /^[0-9a-f]{32}$/;
/** The pseudo-device a v1 vault (or the v1 part of an upgraded one) is read as. */
export const L_DEVICE = 'L';
/** The largest seq a vid may carry: seqs are JSON numbers and must stay exact. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export type Vid = string;

/** A parsed vid: `seq` for a real device, `token` for L. */
export type VidParts = { dev: string; seq: number; token?: undefined } | { dev: typeof L_DEVICE; seq?: undefined; token: string };

const SEQ = /^[1-9][0-9]{0,15}$/;

/** True for a real device's id (never L). */
export function isDeviceId(dev: unknown): dev is string {
  return typeof dev === 'string' && DEVICE_ID.test(dev);
}

/** True for a seq a device may take: a whole number from 1 to MAX_SEQ. */
export function isSeq(seq: unknown): seq is number {
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 1;
}

/** The vid of op `seq` of device `dev`. Throws on a malformed device id or seq (a bug, never user input). */
export function formatVid(dev: string, seq: number): Vid {
  if (!isDeviceId(dev)) throw new Error('formatVid: not a device id');
  if (!isSeq(seq)) throw new Error('formatVid: not a seq');
  return `${dev}:${seq}`;
}

/** A vid of the pseudo-device L; `token` is any non-empty text (a v1 blob id, a path). */
export function formatLVid(token: string): Vid {
  if (token.length === 0) throw new Error('formatLVid: empty token');
  return `${L_DEVICE}:${token}`;
}

/** The parts of a vid, or undefined when it is not one. */
export function parseVid(vid: unknown): VidParts | undefined {
  if (typeof vid !== 'string') return undefined;
  const colon = vid.indexOf(':');
  if (colon < 0) return undefined;
  const dev = vid.slice(0, colon);
  const rest = vid.slice(colon + 1);
  if (dev === L_DEVICE) return rest.length > 0 ? { dev: L_DEVICE, token: rest } : undefined;
  if (!isDeviceId(dev) || !SEQ.test(rest)) return undefined;
  const seq = Number(rest);
  return isSeq(seq) ? { dev, seq } : undefined;
}

export function isVid(vid: unknown): vid is Vid {
  return parseVid(vid) !== undefined;
}

/** The device part of a vid (the text before its first colon). */
export function deviceOf(vid: Vid): string {
  return vid.slice(0, vid.indexOf(':'));
}

/**
 * Total order on vids: by device id (plain string order, so `L` before every
 * hex id), then by seq numerically (L's tokens by string order). "The smallest
 * vid" in the merge rules means the first in this order.
 */
export function compareVid(a: Vid, b: Vid): number {
  if (a === b) return 0;
  const pa = parseVid(a);
  const pb = parseVid(b);
  if (!pa || !pb) return a < b ? -1 : 1;
  if (pa.dev !== pb.dev) return pa.dev < pb.dev ? -1 : 1;
  if (pa.seq !== undefined && pb.seq !== undefined) return pa.seq - pb.seq;
  const ta = pa.token ?? String(pa.seq);
  const tb = pb.token ?? String(pb.seq);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/** A device's seq counter state as other devices know it: the highest seq of each device included. */
export type Frontier = Map<string, number>;
