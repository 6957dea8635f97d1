/**
 * Argon2id (libsodium crypto_pwhash) run in a worker thread, so deriving a key
 * never blocks the event loop that drives the window or the CLI's prompt.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { VaultError, type KdfParams } from './types';
import { m } from '../i18n/message';

const MiB = 1024 * 1024;
export const KDF_FLOOR: KdfParams = { opslimit: 2, memlimit: 64 * MiB };
export const KDF_CEILING: KdfParams = { opslimit: 10, memlimit: 1024 * MiB };
export const SALT_BYTES = 16;

/** True when the parameters lie between the floor and the ceiling this build accepts. */
export function kdfInBounds(p: KdfParams): boolean {
  return (
    Number.isInteger(p.opslimit) &&
    Number.isInteger(p.memlimit) &&
    p.opslimit >= KDF_FLOOR.opslimit &&
    p.opslimit <= KDF_CEILING.opslimit &&
    p.memlimit >= KDF_FLOOR.memlimit &&
    p.memlimit <= KDF_CEILING.memlimit
  );
}

/** INVALID unless `kdf` (if given, e.g. a new cost for a passphrase) lies within the floor and ceiling. */
export function checkKdf(kdf: KdfParams | undefined): void {
  if (kdf && !kdfInBounds(kdf)) throw new VaultError('INVALID', m('errors:kdf.bounds'));
}

// The worker is a file of its own, found beside this module: kdf-worker.cjs in the source
// tree, and in the build the copy with libsodium bundled in that sits beside the main bundle
// inside app.asar (Electron loads worker files from the archive), so nothing is unpacked.
const WORKER_FILE = path.join(import.meta.dirname, 'kdf-worker.cjs');

/**
 * Derives a 32-byte key from `password` (which this function zeroes) with
 * Argon2id in a worker. Rejects parameters outside the floor and ceiling.
 */
export async function deriveKey(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<Uint8Array> {
  return (await deriveTimed(password, salt, params)).key;
}

/** deriveKey, plus how long Argon2id itself took (without the worker's start-up). */
function deriveTimed(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<{ key: Uint8Array; ms: number }> {
  if (!kdfInBounds(params)) {
    password.fill(0);
    return Promise.reject(new VaultError('BAD_HEADER', m('errors:header.kdfOutOfRange'), 'vault.json'));
  }
  return new Promise((resolve, reject) => {
    if (!existsSync(WORKER_FILE)) {
      password.fill(0);
      reject(new VaultError('IO', m('errors:kdf.noWorker')));
      return;
    }
    const worker = new Worker(WORKER_FILE, { workerData: { password, salt, opslimit: params.opslimit, memlimit: params.memlimit } });
    // workerData is a copy; the caller's buffer is no longer needed.
    password.fill(0);
    let settled = false;
    worker.once('message', (msg: { key?: Uint8Array; ms?: number; error?: string }) => {
      settled = true;
      void worker.terminate();
      const key = msg.key;
      if (!key || key.length !== 32 || key.every((b) => b === 0)) {
        reject(new VaultError('IO', m('errors:kdf.failed')));
        return;
      }
      resolve({ key, ms: msg.ms ?? 0 });
    });
    worker.once('error', () => {
      if (!settled) reject(new VaultError('IO', m('errors:kdf.outOfMemory')));
    });
    worker.once('exit', () => {
      if (!settled) reject(new VaultError('IO', m('errors:kdf.interrupted')));
    });
  });
}

/**
 * Chooses parameters so one derivation takes about `targetMs` on this machine,
 * never below the floor: times one floor derivation and scales memory first
 * (up to 256 MiB, which keeps unlock's peak memory modest), then passes.
 */
export async function calibrateKdf(targetMs = 700): Promise<KdfParams> {
  // Time Argon2id alone: the worker's start-up is paid once per unlock whatever the parameters.
  const probe = await deriveTimed(new Uint8Array(8), new Uint8Array(SALT_BYTES), KDF_FLOOR);
  probe.key.fill(0);
  const floorMs = Math.max(1, probe.ms);
  const params = { ...KDF_FLOOR };
  const estimate = (p: KdfParams) => floorMs * (p.opslimit / KDF_FLOOR.opslimit) * (p.memlimit / KDF_FLOOR.memlimit);
  while (params.memlimit < 256 * MiB && estimate({ ...params, memlimit: params.memlimit * 2 }) <= targetMs) params.memlimit *= 2;
  while (params.opslimit < KDF_CEILING.opslimit && estimate({ ...params, opslimit: params.opslimit + 1 }) <= targetMs) params.opslimit += 1;
  return params;
}
