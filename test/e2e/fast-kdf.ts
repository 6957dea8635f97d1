/**
 * kdf.ts as the e2e specs' main process sees it: the same module, but with
 * `deriveKey` answered by the test stand-in (test/kdf-stand-in.ts) instead of
 * Argon2id. Measured before: a quarter of the e2e phase's CPU was key
 * derivation (74 derivations in 40 tests, 0.55 s each with the worker's
 * start). keys.ts is the one importer of `deriveKey`; fast-kdf-hooks.mjs,
 * registered by playwright.config.ts, hands keys.ts this file instead of
 * kdf.ts, in the test processes only: nothing outside test/ changes, the
 * built app and CLI always run the real derivation.
 *
 * Real Argon2id still runs for the specs in REAL_KDF (their vault is opened by
 * child processes running the shipped bundle), for the committed fixture vaults,
 * and for any cost outside the floor and ceiling (refused as before).
 */
import { test } from '@playwright/test';
import * as real from '../../electron/core/vault/kdf';
import type { KdfParams } from '../../electron/core/vault/types';
import { needsRealKdf, standInKey } from '../kdf-stand-in';

export * from '../../electron/core/vault/kdf';

/**
 * Spec files whose vaults are opened by a child process running the shipped bundle: derived for real. None now:
 * mcp-concurrency's writers run the tests' build of the CLI (test/test-cli.ts), which derives as this file does.
 */
const REAL_KDF: string[] = [];

function currentSpec(): string | undefined {
  try {
    return test.info().file;
  } catch {
    return undefined; // outside a test: derive for real
  }
}

/** Derivations in this test process so far (kept on globalThis: the spec and keys.ts may see two copies of this module). */
export function derivations(): { real: number; standIn: number } {
  const g = globalThis as { mnemoDerivations?: { real: number; standIn: number } };
  return (g.mnemoDerivations ??= { real: 0, standIn: 0 });
}

export async function deriveKey(password: Uint8Array, salt: Uint8Array, params: KdfParams): Promise<Uint8Array> {
  const spec = currentSpec();
  if (!spec || REAL_KDF.some((f) => spec.endsWith(`/${f}`)) || needsRealKdf(salt, params, real.kdfInBounds)) {
    derivations().real++;
    return real.deriveKey(password, salt, params);
  }
  derivations().standIn++;
  return standInKey(password, salt, params);
}
