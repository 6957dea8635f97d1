/**
 * Argon2id at the floor (2 passes, 64 MiB) takes about 0.4 s a derivation
 * here, and most unit tests make a vault, open it again or lock and unlock it:
 * the key derivation was well over half of the unit phase's time. So, in this
 * test process only, kdf.ts's `deriveKey` is replaced by a stand-in with the
 * same contract — parameters outside the floor and ceiling refused as
 * BAD_HEADER, the password buffer zeroed, the same 32-byte key for the same
 * password, salt and cost, answered asynchronously — computed with BLAKE2b.
 *
 * Child processes derive the same way: the CLI the tests run (test/test-cli.ts)
 * and the bundled crash, lock and per-call children (bundle-child.ts) are
 * built with the stand-in (test/kdf-stand-in-plugin.ts), so a vault made here
 * opens there and the other way round. Real Argon2id still runs wherever it
 * matters: the files in REAL_KDF below (the KDF's own tests, the test of the
 * shipped bundle, and tests whose children run from source under tsx — a file
 * missing from the list fails loudly with a wrong passphrase, never passes by
 * mistake), for the vaults committed under test/fixtures (made by real builds)
 * and the packaged-layout test. The stand-in itself is test/kdf-stand-in.ts,
 * which the e2e specs use too (test/e2e/fast-kdf.ts). Nothing outside test/
 * changes but a `plugins` option of the CLI's build, which only tests pass.
 */
import path from 'node:path';
import { expect, vi } from 'vitest';
import type * as Kdf from '../../electron/core/vault/kdf';
import type { KdfParams } from '../../electron/core/vault/types';
import { needsRealKdf, standInKey } from '../kdf-stand-in';

/** Paths with forward slashes, as vitest gives the test file's path on every platform. */
const posix = (p: string) => p.split(path.sep).join('/');
const ROOT = posix(path.resolve(import.meta.dirname, '../..'));

/** Test files that derive keys with the real Argon2id worker. */
const REAL_KDF = new Set(
  [
    // The KDF itself: known answers, the worker against the main thread, calibration, bounds.
    'test/unit/vault/crypto.test.ts',
    // Strengthening from Settings: the slot at the new, higher cost is made and opened by the real worker.
    'test/unit/main/recovery-rollback.test.ts',
    // The shipped bundle itself (dist/cli.js, not the tests' build of it) opens their vaults.
    'test/unit/cli/bundle.test.ts',
    // Their vaults are opened by child processes run from source with tsx, which derive for real.
    'test/unit/main/headless-vault.test.ts',
    'test/unit/mcp-channel/channel.test.ts',
    'test/unit/mcp-channel/configs.test.ts',
    'test/unit/mcp-channel/other-user.test.ts',
    'test/unit/vault/lock-disk-full.test.ts',
    'test/unit/vault/lock-file-lost.test.ts',
    'test/unit/vault/lock-identity.test.ts',
    'test/unit/vault/lock-record.test.ts',
    'test/unit/vault/lock.test.ts',
    'test/unit/vault/special-files.test.ts',
  ].map((f) => `${ROOT}/${f}`),
);

const realFor = (file: string | undefined) => !file || REAL_KDF.has(posix(file));

vi.mock('../../electron/core/vault/kdf', async (importOriginal) => {
  const real = await importOriginal<typeof Kdf>();
  return {
    ...real,
    async deriveKey(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<Uint8Array> {
      // Counted, real or not: a test that must see no derivation (a check that has to come first) reads it.
      const g = globalThis as { mnemoDerivations?: number };
      g.mnemoDerivations = (g.mnemoDerivations ?? 0) + 1;
      if (realFor(expect.getState().testPath) || needsRealKdf(salt, params, real.kdfInBounds)) return real.deriveKey(password, salt, params);
      return standInKey(password, salt, params);
    },
  };
});
