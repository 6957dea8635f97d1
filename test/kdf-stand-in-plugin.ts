/**
 * An esbuild plugin for the test bundles of the CLI and of the tests' child
 * scripts: keys.ts's import of kdf.ts gets kdf.ts with `deriveKey` answered by
 * the test stand-in (kdf-stand-in.ts), so a vault made in a test process and
 * one made by a child open each other, without Argon2id's cost on either side
 * (the unit phase spent about a third of its CPU deriving keys in children).
 * The committed fixture vaults (salts built in here) and costs outside the
 * floor and ceiling still go to the real derivation. The shipped bundle never
 * gets this plugin: only test/ passes it.
 */
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { readFixtureSalts } from './kdf-stand-in';

const ROOT = path.resolve(import.meta.dirname, '..');
const KEYS = path.join(ROOT, 'electron/core/vault/keys.ts');

export function kdfStandInPlugin(): Plugin {
  return {
    name: 'mnemo-kdf-stand-in',
    setup(build) {
      build.onResolve({ filter: /^\.\/kdf$/ }, (args) => (path.resolve(args.importer) === KEYS ? { path: 'kdf', namespace: 'mnemo-kdf-stand-in' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'mnemo-kdf-stand-in' }, () => ({
        resolveDir: ROOT,
        loader: 'ts',
        contents: `
export * from './electron/core/vault/kdf';
import { deriveKey as realDeriveKey, kdfInBounds } from './electron/core/vault/kdf';
import { needsRealKdf, standInKey } from './test/kdf-stand-in';
const FIXTURE_SALTS = new Set(${JSON.stringify(readFixtureSalts(ROOT))});
const isFixture = (salt: Uint8Array) => FIXTURE_SALTS.has(Buffer.from(salt).toString('base64'));
export async function deriveKey(password: Uint8Array, salt: Uint8Array, params: { opslimit: number; memlimit: number }): Promise<Uint8Array> {
  if (needsRealKdf(salt, params, kdfInBounds, isFixture)) return realDeriveKey(password, salt, params);
  return standInKey(password, salt, params);
}
`,
      }));
    },
  };
}

/** The sources of the stand-in, for a test bundle's staleness check: its code, and the fixtures whose salts it builds in. */
export const STAND_IN_SOURCES = [path.join(ROOT, 'test/kdf-stand-in.ts'), path.join(ROOT, 'test/kdf-stand-in-plugin.ts'), path.join(ROOT, 'test/fixtures')];
