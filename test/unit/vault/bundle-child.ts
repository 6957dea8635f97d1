import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { kdfStandInPlugin } from '../../kdf-stand-in-plugin';

/**
 * Bundles a child-process script for the tests that start many processes: a
 * bundled child starts in a few tens of milliseconds instead of a second
 * under tsx. Each script gets its own folder (test files run side by side),
 * with kdf-worker.cjs beside the bundle, where kdf.ts starts it from, as
 * beside the app's main bundle. Keys are derived with the tests' stand-in
 * (kdf-stand-in-plugin.ts), as in the test process.
 */
export async function bundleChild(entry: string): Promise<string> {
  const name = path.basename(entry, '.ts');
  const outdir = path.join(import.meta.dirname, '../../../node_modules/.cache/mnemo-children', name);
  await fs.mkdir(outdir, { recursive: true });
  const outfile = path.join(outdir, `${name}.mjs`);
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, external: ['libsodium-wrappers-sumo', 'fs-native-extensions'], logLevel: 'silent', plugins: [kdfStandInPlugin()] });
  await fs.copyFile(path.join(import.meta.dirname, '../../../electron/core/vault/kdf-worker.cjs'), path.join(outdir, 'kdf-worker.cjs'));
  return outfile;
}
