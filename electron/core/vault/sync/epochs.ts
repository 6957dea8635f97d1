/**
 * Key epochs across computers (docs/sync-design.md §7, §12.10). A key
 * rotation (or a new recovery key, which is one) makes a new master key and a
 * new epoch; vault.json names it. Computers go on writing into
 * `devices/<dev>/<new ep>/`, and what was written under the old keys stays
 * readable through a **keys file** each computer puts in its folder of the
 * new epoch:
 *
 *   k-<rand:16>   MNEMOKY2 ‖ nonce ‖ AEAD_manifestKey(padded JSON {format, epochs: [[epoch, vmk], …]}),
 *                 AD = MNEMOKY2 ‖ vaultId ‖ device ‖ epoch ‖ name
 *
 * It holds the master keys of every older epoch this computer knew, so a key
 * only ever opens what the keys before it opened. Reading goes across epochs:
 * a device's seqs go on from one epoch to the next, and the files of every
 * epoch whose key is known are read as one folder (store2.ts). A computer
 * removes its own files of an old epoch once its checkpoint in the new one
 * holds everything they held and every other computer has written in the
 * new epoch (closeOldEpochs).
 */
import path from 'node:path';
import { concat, fromHex, fromUtf8, open, padded, randomBytes, seal, toHex, unpadded, utf8, wipe } from '../crypto';
import type { StoreKeys } from '../blobs';
import type { VaultFs } from '../fsio';
import { vaultIdBytes, type Header } from '../header';
import { storeKeys, wipeKeys } from '../keys';
import { deviceDir, listDevices, writeImmutable } from './layout';

const KEYS_MAGIC = utf8('MNEMOKY2');
const FORMAT = 1;
/** A keys file is small (one key per older epoch): anything larger is not one. */
const KEYS_MAX = 64 * 1024;
/** At most this many keys files that open are taken per device folder. */
const KEYS_PER_FOLDER = 8;
/**
 * At most this many names like a keys file are tried per device folder (anyone may leave files named like one, and
 * name them to sort before the real one: so many small files are read past, not the first few taken as all there is).
 */
const KEYS_TRIED = 4096;

/** An older key epoch whose key is known: its files are read with `keys`. */
export interface OldEpoch {
  epoch: string;
  vmk: Uint8Array;
  keys: StoreKeys;
}

export const isKeysFile = (name: string): boolean => /^k-[0-9a-f]{16}$/.test(name);

function ad(vaultId: Uint8Array, device: string, epoch: string, name: string): Uint8Array {
  return concat(KEYS_MAGIC, vaultId, fromHex(device), fromHex(epoch), utf8(name));
}

/** The bytes of a keys file holding `old` (epoch → master key), sealed under the epoch's manifest key. */
export function sealKeysFile(vaultId: Uint8Array, manifestKey: Uint8Array, device: string, epoch: string, name: string, old: readonly OldEpoch[]): Uint8Array {
  const body = padded(utf8(JSON.stringify({ format: FORMAT, epochs: old.map((e) => [e.epoch, toHex(e.vmk)]) })));
  try {
    return concat(KEYS_MAGIC, seal(manifestKey, body, ad(vaultId, device, epoch, name)));
  } finally {
    wipe(body);
  }
}

/** The keys in a keys file, or undefined when it is not whole, not authentic or not of this format. */
export function openKeysFile(vaultId: Uint8Array, manifestKey: Uint8Array, device: string, epoch: string, name: string, bytes: Uint8Array): Array<[string, Uint8Array]> | undefined {
  if (bytes.length < KEYS_MAGIC.length || fromUtf8(bytes.subarray(0, KEYS_MAGIC.length)) !== 'MNEMOKY2') return undefined;
  const plain = open(manifestKey, bytes.subarray(KEYS_MAGIC.length), ad(vaultId, device, epoch, name));
  if (!plain) return undefined;
  try {
    const body = JSON.parse(fromUtf8(unpadded(plain))) as { format?: unknown; epochs?: unknown };
    if (body.format !== FORMAT || !Array.isArray(body.epochs)) return undefined;
    const out: Array<[string, Uint8Array]> = [];
    for (const e of body.epochs as unknown[]) {
      if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'string' || !/^[0-9a-f]{32}$/.test(e[0]) || !/^[0-9a-f]{64}$/.test(e[1])) return undefined;
      out.push([e[0], fromHex(e[1])]);
    }
    return out;
  } catch {
    return undefined;
  } finally {
    wipe(plain);
  }
}

/**
 * Every older epoch whose key a keys file of epoch `epoch` holds (any device's, or device `only`'s; each is
 * authenticated by the epoch's own key). A file that does not open is read past: it may still be arriving, or be anyone's.
 */
export async function readOldEpochs(fsx: VaultFs, root: string, vaultId: Uint8Array, epoch: string, manifestKey: Uint8Array, only?: string): Promise<OldEpoch[]> {
  const found = new Map<string, Uint8Array>();
  for (const dev of only ? [only] : await listDevices(fsx, root)) {
    for await (const keys of keysFilesOf(fsx, root, vaultId, epoch, manifestKey, dev)) {
      for (const [e, vmk] of keys) {
        if (e === epoch || found.has(e)) wipe(vmk);
        else found.set(e, vmk);
      }
    }
  }
  return [...found].map(([e, vmk]) => ({ epoch: e, vmk, keys: storeKeys(vmk) }));
}

/** The contents of `dev`'s keys files of epoch `epoch` that open (at most KEYS_PER_FOLDER; the caller wipes the keys). */
async function* keysFilesOf(fsx: VaultFs, root: string, vaultId: Uint8Array, epoch: string, manifestKey: Uint8Array, dev: string): AsyncGenerator<Array<[string, Uint8Array]>> {
  const dir = path.join(root, deviceDir(dev, epoch));
  const names = (await fsx.readdir(dir).catch(() => [] as string[])).filter(isKeysFile).sort().slice(0, KEYS_TRIED);
  let opened = 0;
  for (const name of names) {
    const full = path.join(dir, name);
    const st = await fsx.stat(full).catch(() => undefined);
    if (!st || !st.isFile || st.size > KEYS_MAX) continue;
    const bytes = await fsx.readFile(full).catch(() => undefined);
    const keys = bytes && openKeysFile(vaultId, manifestKey, dev, epoch, name, bytes);
    if (!keys) continue;
    yield keys;
    if (++opened >= KEYS_PER_FOLDER) return;
  }
}

/** Writes a keys file holding `old` into `device`'s folder of epoch `epoch` (made first if missing). */
export async function writeKeysFile(fsx: VaultFs, root: string, vaultId: Uint8Array, manifestKey: Uint8Array, device: string, epoch: string, old: readonly OldEpoch[]): Promise<void> {
  const dir = path.join(root, deviceDir(device, epoch));
  await makeFolder(fsx, root, dir);
  const name = `k-${toHex(randomBytes(8))}`;
  await writeImmutable(fsx, dir, name, device, sealKeysFile(vaultId, manifestKey, device, epoch, name, old));
}

/** Makes `dir` (a device's epoch folder) and its parents durably. */
export async function makeFolder(fsx: VaultFs, root: string, dir: string): Promise<void> {
  const parts = path.relative(root, dir).split(path.sep);
  let at = root;
  for (const p of parts) {
    const next = path.join(at, p);
    await fsx.mkdir(next);
    await fsx.syncDir(at);
    at = next;
  }
}

/** The older epochs the keys files of `header`'s epoch name, opened with that epoch's master key `vmk`. */
export async function readChain(fsx: VaultFs, root: string, header: Header, vmk: Uint8Array): Promise<OldEpoch[]> {
  const keys = storeKeys(vmk);
  try {
    return await readOldEpochs(fsx, root, vaultIdBytes(header), header.manifest, keys.manifest);
  } finally {
    wipeKeys(keys);
  }
}

/** Wipes the keys of older epochs. */
export function wipeOld(old: readonly OldEpoch[]): void {
  for (const e of old) {
    wipe(e.vmk);
    wipeKeys(e.keys);
  }
}
