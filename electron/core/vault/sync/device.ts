/**
 * This device's identity for one vault (docs/sync-design.md §2.1): 16 random
 * bytes, kept in the local state folder as `<vaultId>.device`, never in the
 * vault folder (a sync engine would copy it to the other computers) and never
 * derived from the host name (two state folders on one computer are two
 * devices, which is also how tests make two computers). It is written durably
 * before the device writes its first file into the vault, so a power cut can
 * never make a device come back under another id with its files already out.
 */
import path from 'node:path';
import { fromUtf8, randomBytes, toHex, utf8 } from '../crypto';
import { io, readIfExists, writeFileDurable } from '../files';
import { nodeFs, type VaultFs } from '../fsio';
import { isDeviceId } from './ids';

/** What `<vaultId>.device` holds. */
export interface DeviceRecord {
  /** 32 lower-case hex characters. */
  id: string;
  /** When this device first wrote to the vault (ms since epoch). */
  created: number;
  /**
   * The id this computer wrote as before this one (store2.ts `rehome`), kept so that its succession (devices.ts
   * `succeed2`: the old id forgotten, the user's name for it carried over) is finished at a later open when a crash or
   * a close came first.
   */
  left?: string;
}

const VAULT_ID = /^[0-9a-f]{32}$/;

/** The device file of `vaultId` in `stateDir`. */
export function deviceFile(stateDir: string, vaultId: string): string {
  // The vault id comes from vault.json, a file others can write: it must not steer the name out of the folder.
  if (!VAULT_ID.test(vaultId)) throw new Error('deviceFile: not a vault id');
  return path.join(stateDir, `${vaultId}.device`);
}

/** A device record from a file's bytes, or undefined when they are not one. */
export function parseDeviceRecord(bytes: Uint8Array): DeviceRecord | undefined {
  try {
    const r = JSON.parse(fromUtf8(bytes)) as Partial<DeviceRecord> | null;
    if (!r || typeof r !== 'object' || !isDeviceId(r.id) || typeof r.created !== 'number' || !Number.isSafeInteger(r.created) || r.created < 0) return undefined;
    return { id: r.id, created: r.created, ...(isDeviceId(r.left) && r.left !== r.id ? { left: r.left } : {}) };
  } catch {
    return undefined;
  }
}

/** This device's record for the vault, or undefined when it has none yet (or an unreadable one). */
export async function loadDevice(stateDir: string, vaultId: string, fsx: VaultFs = nodeFs): Promise<DeviceRecord | undefined> {
  const file = deviceFile(stateDir, vaultId);
  const bytes = await io('errors:io.action.readDevice', () => readIfExists(fsx, file));
  return bytes ? parseDeviceRecord(bytes) : undefined;
}

/**
 * This device's record for the vault, minting and durably writing a new one
 * when there is none. `minted` says a new id was made: also when the file was
 * there but unreadable (a fresh id can never collide with any device's
 * history, so replacing a damaged record loses nothing; the old id's files
 * are then read as another device's). A read that fails (not a missing file)
 * is an IO error, never a reason to mint.
 *
 * Call with the device lock held (`<stateDir>/locks/<vaultId>.lock`, stage 3):
 * two processes minting at once would otherwise each keep their own id.
 */
export async function ensureDevice(stateDir: string, vaultId: string, fsx: VaultFs = nodeFs, now: () => number = Date.now, left?: string): Promise<{ device: DeviceRecord; minted: boolean }> {
  const known = await loadDevice(stateDir, vaultId, fsx);
  // `left`: an id this device no longer writes as (its own files went back, store2.ts `rehome`): replaced by a new one.
  if (known && known.id !== left) return { device: known, minted: false };
  const device: DeviceRecord = { id: toHex(randomBytes(16)), created: Math.floor(now()), ...(left ? { left } : {}) };
  const file = deviceFile(stateDir, vaultId);
  await io('errors:io.action.saveDevice', async () => {
    // The state folder may be new: its own entry must be durable too, or a power cut could lose the record.
    await fsx.mkdir(stateDir);
    await fsx.syncDir(path.dirname(stateDir));
    await writeFileDurable(fsx, file, utf8(JSON.stringify(device) + '\n'));
  });
  return { device, minted: true };
}
