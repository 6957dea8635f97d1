/**
 * Where format v2 keeps its files (docs/sync-design.md §1): each device writes
 * only under `devices/<dev>/<ep>/`, with `<ep>` the first 8 hex characters of
 * the key epoch. Names are lower-case ASCII hex, safe on case-insensitive and
 * NFD file systems:
 *
 *   j-<seq:12>-<rand:8>   journal segment (append-only while open)
 *   c-<seq:12>-<rand:8>   checkpoint (immutable; seq = the last own seq it covers)
 *   p-<rand:16>           blob pack made by compaction (immutable)
 *   .tmp-<dev8>-<rand>    a temp file of device <dev>: removed only by that device
 *
 * Anything else, in the root or in a device folder, is somebody else's (a sync
 * engine's marker, another device's temp, a conflict copy): read past, never
 * deleted or changed.
 */
import path from 'node:path';
import { toHex, uniqueBytes } from '../crypto';
import type { VaultFs } from '../fsio';
import { parseSegmentName, segmentName, type SegmentKind } from './records2';

export const DEVICES_DIR = 'devices';

/** Files sync engines leave in a synced folder's root; a vault's root may hold them (§1). */
export const SYNC_MARKERS: ReadonlySet<string> = new Set(['.stfolder', '.stignore', '.stversions', '.dropbox', '.dropbox.attr', 'desktop.ini', '.DS_Store', 'Icon\r']);

/** The folder of one device's files in one key epoch, relative to the vault root. */
export function deviceDir(device: string, epoch: string): string {
  return path.join(DEVICES_DIR, device, epoch.slice(0, 8));
}

/** A new segment (`j`) or checkpoint (`c`) name. */
export function newName(kind: SegmentKind, seq: number): string {
  return segmentName(kind, seq, toHex(uniqueBytes(4)));
}

/** A new pack name. */
export function newPackName(): string {
  return `p-${toHex(uniqueBytes(8))}`;
}

export type OwnFile = { kind: 'j' | 'c'; name: string; seq: number } | { kind: 'p'; name: string };

/** What a file name in a device folder is, or undefined for any name this format does not write. */
export function parseFileName(name: string): OwnFile | undefined {
  if (/^p-[0-9a-f]{16}$/.test(name)) return { kind: 'p', name };
  const seg = parseSegmentName(name);
  return seg ? { kind: seg.kind, name, seq: seg.firstSeq } : undefined;
}

/** The prefix of device `device`'s temp files. */
export const tempPrefix = (device: string): string => `.tmp-${device.slice(0, 8)}-`;

/** A new temp file name of `device` (in the folder of the file it becomes). */
export function tempName(device: string): string {
  return `${tempPrefix(device)}${toHex(uniqueBytes(8))}`;
}

/**
 * Writes `data` as a new immutable file `dir/name` of `device`: a temp of its
 * own, synced, renamed into place and the folder synced. A crash leaves the
 * file whole or absent (and perhaps the temp, which only this device removes).
 */
export async function writeImmutable(fsx: VaultFs, dir: string, name: string, device: string, data: Uint8Array): Promise<void> {
  const tmp = path.join(dir, tempName(device));
  const fh = await fsx.open(tmp, 'new');
  try {
    if ((await fh.write(data, 0)) !== data.length) throw new Error('short write');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsx.rename(tmp, path.join(dir, name));
  await fsx.syncDir(dir);
}

/** Removes `device`'s own temp files left in `dir` by a crash; never anyone else's. */
export async function removeOwnTemps(fsx: VaultFs, dir: string, device: string): Promise<void> {
  const prefix = tempPrefix(device);
  for (const name of await fsx.readdir(dir).catch(() => [] as string[])) if (name.startsWith(prefix)) await fsx.unlink(path.join(dir, name));
}

/** The device ids with a folder under `devices/` (names that are not device ids are left alone). */
export async function listDevices(fsx: VaultFs, root: string): Promise<string[]> {
  const names = await fsx.readdir(path.join(root, DEVICES_DIR)).catch(() => [] as string[]);
  return names.filter((n) => /^[0-9a-f]{32}$/.test(n)).sort();
}
