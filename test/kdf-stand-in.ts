/**
 * The stand-in for Argon2id shared by the unit setup (test/unit/fast-kdf.ts)
 * and the e2e harness (test/e2e/fast-kdf.ts): Argon2id at the floor costs
 * about 0.3 s of CPU plus a worker start a derivation here, and the suites
 * make and unlock vaults by the hundred. Same contract as kdf.ts's
 * `deriveKey` — the password buffer zeroed, the same 32-byte key for the same
 * password, salt and cost, answered asynchronously — computed with BLAKE2b.
 * Callers fall back to the real derivation where a child process running the
 * real bundle, or a committed vault made by a real build, needs it. Test
 * bundles of the CLI and of child scripts get it through kdf-stand-in-plugin.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import type { KdfParams } from '../electron/core/vault/types';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The salts of the vaults committed under `root`/test/fixtures (written by real builds): opening them needs the real derivation. */
export function readFixtureSalts(root: string): string[] {
  const dir = path.join(root, 'test/fixtures');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'vault.json')))
    .flatMap((d) => (JSON.parse(fs.readFileSync(path.join(dir, d.name, 'vault.json'), 'utf8')) as { slots: Array<{ kdf?: { salt: string } }> }).slots)
    .flatMap((s) => (s.kdf ? [s.kdf.salt] : []));
}

let fixtureSalts: ReadonlySet<string> | undefined;
/** Read when first asked (a bundled child, which cannot find test/fixtures from where it runs, gets them built in instead). */
export const isFixtureSalt = (salt: Uint8Array): boolean => (fixtureSalts ??= new Set(readFixtureSalts(ROOT))).has(Buffer.from(salt).toString('base64'));

/**
 * Where every stand-in still derives for real: the salt of a committed vault (made by a real build) and a cost outside
 * kdf.ts's floor and ceiling (which the real derivation refuses). `isFixture` is given where test/fixtures cannot be read.
 */
export function needsRealKdf(salt: Uint8Array, params: KdfParams, inBounds: (p: KdfParams) => boolean, isFixture: (salt: Uint8Array) => boolean = isFixtureSalt): boolean {
  return isFixture(salt) || !inBounds(params);
}

/** The stand-in key for `password` (zeroed here), `salt` and `params`. Call only with parameters kdf.ts accepts. */
export async function standInKey(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<Uint8Array> {
  await sodium.ready;
  const cost = new Uint8Array(new Uint32Array([params.opslimit, params.memlimit]).buffer);
  const input = new Uint8Array([...password, 0, ...salt, ...cost]);
  password.fill(0);
  // As the worker answers: never in the same turn of the event loop.
  await new Promise((r) => setImmediate(r));
  const key = sodium.crypto_generichash(32, input, sodium.from_string('mnemo unit-test stand-in for Argon2id'));
  input.fill(0);
  return key;
}
