/**
 * Two key rotations made at once on two computers (docs/sync-design.md §7, §12.10): both headers name a new
 * epoch at the same counter, each under its own master key, and the sync engine keeps one as vault.json and the
 * other as a copy. Both were made with the same passphrase, so an unlock with it opens both: the best copy wins
 * (headerfile-copies.ts `unwrapBest`), and the other is a **rival**: not tamper, and its epoch is read as an older one
 * (its key joins the keys files), so what was written under it after its rotation is kept. Its header is kept
 * (under a name of its own when it was vault.json) until this computer's keys file holds its key.
 */
import path from 'node:path';
import { wipe } from '../crypto';
import { writeFileDurable } from '../files';
import type { VaultFs } from '../fsio';
import { headerAuthentic, vaultIdBytes, type Header } from '../header';
import { storeKeys, wipeKeys } from '../keys';
import { readOldEpochs, wipeOld, type OldEpoch } from './epochs';
import { HEADER_FILE, sortOut, type HeaderCopy } from './header-copies';

/** At most this many rival copies are tried at an unlock (one key derivation each). */
const MAX_RIVALS = 2;

export interface Rival extends OldEpoch {
  /** The copy's file name and digest. */
  name: string;
  digest: string;
}

/**
 * The copies among `copies` that are not ours under `vmk` but open with the same secret (`unwrap`) as headers of
 * another epoch of this vault, authentic under their own key.
 */
export async function findRivals(copies: readonly HeaderCopy[], current: Header, vmk: Uint8Array, unwrap: (h: Header) => Promise<Uint8Array>, known: readonly string[] = []): Promise<Rival[]> {
  const out: Rival[] = [];
  let tried = 0;
  for (const c of sortOut(copies, vmk).foreign) {
    const h = c.header;
    if (h.vaultId !== current.vaultId || h.manifest === current.manifest || h.mac === undefined || known.includes(h.manifest) || out.some((r) => r.epoch === h.manifest)) continue;
    if (tried++ >= MAX_RIVALS) break;
    const key = await unwrap(h).catch(() => undefined);
    if (!key) continue;
    if (!headerAuthentic(h, key)) {
      wipe(key);
      continue;
    }
    out.push({ epoch: h.manifest, vmk: key, keys: storeKeys(key), name: c.name, digest: c.digest });
  }
  return out;
}

/**
 * vault.json's master key (epoch `want`) from the keys files of the epoch of `lost`, a header the secret opened (key
 * `vmk`) that lost to vault.json: a rotation here that crossed a passphrase change made elsewhere keeps the key it
 * rotated from. Undefined when no keys file there holds it.
 */
export type KeyThrough = (lost: HeaderCopy, vmk: Uint8Array, want: string) => Promise<Uint8Array | undefined>;

export function keyThrough(fsx: VaultFs, dir: string): KeyThrough {
  return async (lost, vmk, want) => {
    const keys = storeKeys(vmk);
    const old = await readOldEpochs(fsx, dir, vaultIdBytes(lost.header), lost.header.manifest, keys.manifest);
    wipeKeys(keys);
    const hit = old.find((e) => e.epoch === want);
    const out = hit?.vmk.slice();
    wipeOld(old);
    return out;
  };
}

/** A rival's file name when it was vault.json (the winner is written there): its epoch's first 8 hex. */
export const rivalName = (epoch: string): string => `vault.rival-${epoch.slice(0, 8)}.json`;

/** Keeps a rival that is vault.json under a name of its own, durably, before the winner is written over it. */
export async function keepRival(dir: string, fsx: VaultFs, copies: readonly HeaderCopy[], rivals: readonly Rival[]): Promise<void> {
  for (const r of rivals) {
    if (r.name !== HEADER_FILE) continue;
    const c = copies.find((x) => x.name === HEADER_FILE && x.digest === r.digest);
    if (c) await writeFileDurable(fsx, path.join(dir, rivalName(r.epoch)), c.bytes);
  }
}

/** True when copy `c` authenticates under one of `older`'s keys (a rival or an older epoch: not a stranger's file). */
export const isOlderEpoch = (c: HeaderCopy, older: readonly OldEpoch[]): boolean =>
  c.header.mac !== undefined && older.some((e) => e.epoch === c.header.manifest && headerAuthentic(c.header, e.vmk));
