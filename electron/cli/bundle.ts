/**
 * Builds the `mnemo` CLI into dist/: `dist/cli.js` (the executable launcher,
 * with its shebang) and `dist/cli/` (the rest, split so that what a command
 * does not use is never loaded, plus the key-derivation worker with libsodium
 * bundled in, found beside the code that starts it). Runtime dependencies stay
 * in node_modules. `npm run build:cli`; `--if-stale` skips the build when
 * dist/cli.js is newer than every source file.
 */
import { chmod, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI_BUNDLE = path.join(ROOT, 'dist/cli.js');
const OUT = path.join(ROOT, 'dist');

/** Builds the CLI (unless `ifStale` and it is up to date). Returns whether it built. */
export async function bundleCli(opts: { ifStale?: boolean } = {}): Promise<boolean> {
  if (opts.ifStale && !(await isStale())) return false;
  await rm(path.join(OUT, 'cli'), { recursive: true, force: true });
  const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none' } as const;
  await build({
    ...common,
    entryPoints: { cli: path.join(ROOT, 'electron/cli.ts') },
    outdir: OUT,
    format: 'esm',
    splitting: true,
    // Everything but the launcher goes into dist/cli/, where kdf.ts (in a chunk) finds its worker.
    chunkNames: 'cli/[name]-[hash]',
    // Runtime dependencies load from node_modules, the SDK only when `chat` asks for it. zod is bundled in:
    // every command needs it, and one file loads faster than its hundred modules.
    external: ['@anthropic-ai/sdk', 'libsodium-wrappers-sumo', '@zxcvbn-ts/*'],
    // Less source for V8 to parse on every start; names are kept, so errors and stack traces still read.
    minifyWhitespace: true,
    minifySyntax: true,
  });
  await build({
    ...common,
    entryPoints: [path.join(ROOT, 'electron/core/vault/kdf-worker.cjs')],
    outfile: path.join(OUT, 'cli/kdf-worker.cjs'),
    format: 'cjs',
  });
  await chmod(CLI_BUNDLE, 0o755);
  return true;
}

async function isStale(): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(CLI_BUNDLE)).mtimeMs;
    await stat(path.join(OUT, 'cli/kdf-worker.cjs'));
  } catch {
    return true;
  }
  const sources = [path.join(ROOT, 'package.json'), ...(await filesUnder(path.join(ROOT, 'electron')))];
  for (const file of sources) if ((await stat(file)).mtimeMs > built) return true;
  return false;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push(p);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await bundleCli({ ifStale: process.argv.includes('--if-stale') });
}
