/**
 * Builds the `mnemo` CLI into dist/: `dist/cli.js` (the executable launcher,
 * with its shebang) and `dist/cli/` (the rest, split so that what a command
 * does not use is never loaded, plus the key-derivation worker with libsodium
 * bundled in, found beside the code that starts it). Runtime dependencies stay
 * in node_modules. `npm run build:cli`; `--if-stale` skips the build when
 * dist/cli.js is newer than every source file.
 *
 * Every build is made in a folder of its own and then moved into place, so a
 * `mnemo` started meanwhile, or another build running beside this one (two
 * `npm run mnemo`, or the tests' global setup), never sees half a bundle.
 */
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { build as esbuild, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI_BUNDLE = path.join(ROOT, 'dist/cli.js');
const OUT = path.join(ROOT, 'dist');

export interface BundleOptions {
  ifStale?: boolean;
  outDir?: string;
  /** More esbuild plugins for the code (the tests' bundle swaps the key derivation for a stand-in; the shipped one has none). */
  plugins?: Plugin[];
  /** Files beyond electron/ and package.json whose change makes the bundle stale (those plugins' sources). */
  moreSources?: string[];
}

/**
 * Builds the CLI into `outDir` (default dist/) unless `ifStale` and it is up
 * to date. Returns whether it built.
 */
export async function bundleCli(opts: BundleOptions = {}): Promise<boolean> {
  const out = opts.outDir ?? OUT;
  if (opts.ifStale && !(await isStale(out, opts.moreSources ?? []))) return false;
  await mkdir(out, { recursive: true });
  const tmp = await mkdtemp(path.join(out, '.cli-build-'));
  try {
    await build(tmp, opts.plugins ?? []);
    // A build asked for by name tidies the chunks of earlier builds; one made because the bundle was stale
    // may run beside a `mnemo` still loading them, so it leaves them.
    await install(tmp, out, !opts.ifStale);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return true;
}

/** Builds the launcher `cli.js` and the folder `cli/` into `out`. */
async function build(out: string, plugins: Plugin[]): Promise<void> {
  const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none' } as const;
  await esbuild({
    ...common,
    entryPoints: { cli: path.join(ROOT, 'electron/cli.ts') },
    outdir: out,
    format: 'esm',
    splitting: true,
    // Everything but the launcher goes into dist/cli/, where kdf.ts (in a chunk) finds its worker.
    chunkNames: 'cli/[name]-[hash]',
    // Runtime dependencies load from node_modules, the SDK only when `chat` asks for it. zod is bundled in:
    // every command needs it, and one file loads faster than its hundred modules.
    external: ['@anthropic-ai/sdk', 'libsodium-wrappers-sumo', '@zxcvbn-ts/*', 'fs-native-extensions'],
    // Less source for V8 to parse on every start; names are kept, so errors and stack traces still read.
    minifyWhitespace: true,
    minifySyntax: true,
    plugins,
  });
  await esbuild({
    ...common,
    entryPoints: [path.join(ROOT, 'electron/core/vault/kdf-worker.cjs')],
    outfile: path.join(out, 'cli/kdf-worker.cjs'),
    format: 'cjs',
  });
  await chmod(path.join(out, 'cli.js'), 0o755);
}

/**
 * Moves a build from `tmp` into `out`: the files of `cli/` first, then the
 * launcher, whose one rename switches runs over to the new build. A chunk's
 * name carries a hash of its content, so a chunk already there (from a build
 * beside this one) holds the same bytes and replacing it changes nothing a
 * running `mnemo` reads (the key-derivation worker, the one name without a
 * hash, is replaced whole by its rename); a concurrent build that renames
 * last simply wins.
 * With `prune`, files of `cli/` this build did not make are removed.
 */
async function install(tmp: string, out: string, prune: boolean): Promise<void> {
  const made = await readdir(path.join(tmp, 'cli'));
  await mkdir(path.join(out, 'cli'), { recursive: true });
  for (const name of made) await rename(path.join(tmp, 'cli', name), path.join(out, 'cli', name));
  await rename(path.join(tmp, 'cli.js'), path.join(out, 'cli.js'));
  if (!prune) return;
  for (const name of await readdir(path.join(out, 'cli'))) {
    if (!made.includes(name)) await rm(path.join(out, 'cli', name), { recursive: true, force: true });
  }
}

async function isStale(out: string, moreSources: string[]): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(path.join(out, 'cli.js'))).mtimeMs;
    await stat(path.join(out, 'cli/kdf-worker.cjs'));
  } catch {
    return true;
  }
  const sources = [path.join(ROOT, 'package.json'), ...moreSources, ...(await filesUnder(path.join(ROOT, 'electron')))];
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
