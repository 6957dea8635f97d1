import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAST_KDF, PASS, SHIPPED_CLI_BUNDLE as CLI_BUNDLE, tempDir } from './helpers';
import { cliEnv } from '../../test-cli';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Runs the bundle with a module hook that writes every module it loads to a
 * file, so a test can see what a command pulls in (the work done, not the time).
 */
async function loadedBy(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; modules: string[] }> {
  const dir = await tempDir();
  const log = path.join(dir, 'modules.log');
  const hooks = path.join(dir, 'hooks.mjs');
  await fs.writeFile(hooks, `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');\n  return r;\n}\n`);
  const register = path.join(dir, 'register.mjs');
  await fs.writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, CLI_BUNDLE, ...args], { env: cliEnv(env) });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const modules = (await fs.readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { code, stdout, modules };
}

const heavy = (modules: string[], name: string) => modules.filter((m) => m.includes(`/node_modules/${name}`));

describe('the bundled mnemo', () => {
  it('is dist/cli.js: an executable Node script with a shebang, named as the `mnemo` bin, with its key-derivation worker beside its code', async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin).toEqual({ mnemo: 'dist/cli.js' });
    expect(pkg.scripts.mnemo).toBe('node dist/cli.js');
    expect(CLI_BUNDLE).toBe(path.join(ROOT, 'dist/cli.js'));
    const text = await fs.readFile(CLI_BUNDLE, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    if (process.platform !== 'win32') expect((await fs.stat(CLI_BUNDLE)).mode & 0o111).toBe(0o111);
    await expect(fs.stat(path.join(ROOT, 'dist/cli/kdf-worker.cjs'))).resolves.toBeTruthy();
  });

  it('answers --help without loading libsodium, zod, the Anthropic SDK or the strength estimator', async () => {
    const r = await loadedBy(['--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mnemo — the Mnemo vault from the command line/);
    for (const name of ['libsodium', 'zod', '@anthropic-ai', '@zxcvbn-ts']) expect(heavy(r.modules, name), name).toEqual([]);
    // The launcher and the help text only: the CLI proper (dist/cli/main-*.js) is not loaded.
    expect(r.modules.filter((m) => /\/dist\/cli\/main-/.test(m))).toEqual([]);
  });

  it('lists memories (after the key derivation in its worker) without loading the Anthropic SDK or the strength estimator', async () => {
    const root = await tempDir();
    const env = { MNEMO_PASSPHRASE: PASS, HOME: root, XDG_STATE_HOME: path.join(root, 'state') };
    const vault = path.join(root, 'vault');
    const init = await loadedBy(['init', '--vault', vault, ...FAST_KDF], env);
    expect(init.code).toBe(0);
    const ls = await loadedBy(['ls', '--vault', vault], env);
    expect(ls.code).toBe(0);
    expect(ls.modules.some((m) => /\/dist\/cli\/main-/.test(m))).toBe(true);
    expect(heavy(ls.modules, 'libsodium-wrappers-sumo').length).toBeGreaterThan(0);
    // The memory commands' error class is one small file of the SDK with no imports; the client itself is not loaded.
    expect(heavy(ls.modules, '@anthropic-ai').filter((m) => !m.endsWith('/lib/tools/ToolError.mjs'))).toEqual([]);
    expect(heavy(ls.modules, '@zxcvbn-ts')).toEqual([]);
  });
});
