/**
 * The app exactly as electron-builder packs it (dist/pack/, written by
 * `npm run test:package`): what is inside app.asar, and whether the main
 * bundle, loaded from that layout under plain Node with a recording `electron`
 * stub, can start its key-derivation worker and create, lock and unlock a vault.
 */
import fs from 'node:fs';
import path from 'node:path';
import asar from '@electron/asar';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CALLS } from '../../electron/shared/ipc';
import { rec } from '../unit/main/electron-stub';
import { ASAR, extractInstalledLayout } from './layout';

const ROOT = path.resolve(import.meta.dirname, '../..');

const paths = vi.hoisted(() => {
  // Outside the worktree on purpose (see extractInstalledLayout).
  const tmp = process.env.TMPDIR ?? process.env.TEMP ?? '/tmp';
  const base = `${tmp}/mnemo-packaged-${process.pid}-${Math.random().toString(36).slice(2)}`;
  process.env.XDG_STATE_HOME = `${base}/state`;
  return { base, userData: `${base}/userData`, resources: `${base}/resources` };
});
vi.mock('electron', async () => (await import('../unit/main/electron-stub')).electronStub(paths.userData));

const files = (): string[] => asar.listPackage(ASAR, { isPack: false }).map((f) => f.replaceAll('\\', '/').replace(/^\//, ''));
/** The packages the main bundle imports by bare name (Node built-ins and electron aside). */
function mainImports(): Set<string> {
  const code = asar.extractFile(ASAR, 'dist/main/index.js').toString('utf8');
  // `from "x"`, `import("x")` and a bare `import "x"` statement; not a string that merely reads "import" (a zod literal, say).
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|(?:^|[;}\s])import\s*)["']([^"'.\s][^"'\s]*)["']/gm;
  const bare = [...code.matchAll(specifier)].map((m) => m[1]!).filter((s) => !s.startsWith('node:') && s !== 'electron');
  return new Set(bare.map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!)));
}
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

describe('app.asar as packed', () => {
  it('holds the main bundle, preload, key-derivation worker, renderer page and package.json', () => {
    const inside = new Set(files());
    for (const f of ['package.json', 'dist/main/index.js', 'dist/main/kdf-worker.cjs', 'dist/preload/index.cjs', 'dist/renderer/index.html']) expect(inside, f).toContain(f);
  });

  it('holds every script and stylesheet the renderer page loads', () => {
    const inside = new Set(files());
    const html = asar.extractFile(ASAR, 'dist/renderer/index.html').toString('utf8');
    const refs = [...html.matchAll(/(?:src|href)="\.?\/?([^"]+)"/g)].map((m) => m[1]!).filter((r) => !/^[a-z]+:/.test(r));
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(inside, r).toContain(`dist/renderer/${r}`);
  });

  it('holds, inside the archive itself, every package the main bundle imports at run time', () => {
    const inside = new Set(files());
    expect(mainImports().size).toBeGreaterThan(0);
    for (const name of mainImports()) expect(inside, name).toContain(`node_modules/${name}/package.json`);
  });

  it('ships only the packages the main bundle loads at run time and their dependencies, not those bundled into the renderer', () => {
    const all = files();
    const read = (name: string) => JSON.parse(asar.extractFile(ASAR, `node_modules/${name}/package.json`).toString('utf8')) as Record<string, Record<string, string> | undefined>;
    const needed = new Set<string>();
    const visit = (name: string) => {
      if (needed.has(name) || !all.includes(`node_modules/${name}/package.json`)) return;
      needed.add(name);
      const p = read(name);
      for (const dep of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies })) visit(dep);
    };
    for (const name of mainImports()) visit(name);
    const shipped = new Set(all.map((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(f)?.[1]).filter((n): n is string => !!n));
    expect([...shipped].filter((n) => !needed.has(n)).sort()).toEqual([]);
  });

  it('ships no tests, sources, source maps or dev dependencies', () => {
    const all = files();
    expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(all.filter((f) => /^(test|electron|renderer|build|release|dist\/pack)\//.test(f))).toEqual([]);
    const dev = Object.keys(pkg.devDependencies);
    expect(all.filter((f) => dev.some((d) => f.startsWith(`node_modules/${d}/`)))).toEqual([]);
  });

  it('carries a package.json that names the entry point and desktop entry, without scripts or dev dependencies', () => {
    const packed = JSON.parse(asar.extractFile(ASAR, 'package.json').toString('utf8')) as Record<string, unknown>;
    expect(packed).toMatchObject({ productName: 'Mnemo', main: 'dist/main/index.js', desktopName: 'mnemo.desktop', type: 'module' });
    expect(packed.scripts).toBeUndefined();
    expect(packed.devDependencies).toBeUndefined();
  });

  it('unpacks only the vault lock’s native binaries beside the archive; every other file the app runs is under asar integrity checking', () => {
    const unpacked = fs.existsSync(`${ASAR}.unpacked`) ? fs.readdirSync(`${ASAR}.unpacked`, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];
    const rel = unpacked.map((e) => path.relative(`${ASAR}.unpacked`, path.join(e.parentPath, e.name)).replaceAll('\\', '/'));
    expect(rel.length).toBeGreaterThan(0);
    for (const f of rel) expect(f).toMatch(/^node_modules\/fs-native-extensions\/prebuilds\/(linux|darwin|win32)-[a-z0-9]+\/fs-native-extensions\.node$/);
  });
});

describe('the packaged main bundle, loaded from the layout an installed app resolves', () => {
  beforeAll(async () => {
    await import(/* @vite-ignore */ extractInstalledLayout(paths.resources));
    await vi.waitFor(() => expect(rec.windows).toHaveLength(1));
  });

  const event = () => ({ sender: rec.windows[0]!.webContents, senderFrame: rec.windows[0]!.webContents.mainFrame });
  const call = (name: keyof typeof CALLS, ...args: unknown[]) => rec.ipcHandlers.get(CALLS[name].channel)!(event(), ...args);

  it('starts the key-derivation worker from the archive and creates, locks and unlocks a vault', async () => {
    const passphrase = 'lantern orbit meadow quartz 8142 ferry';
    expect(await call('vaultCreate', { passphrase })).toMatchObject({ ok: true, value: { recoveryKey: expect.any(String) } });
    expect(await call('vaultStatus')).toEqual({ ok: true, value: { exists: true, unlocked: true, rolledBack: false } });
    expect(await call('vaultLock')).toEqual({ ok: true, value: null });
    expect(await call('vaultStatus')).toEqual({ ok: true, value: { exists: true, unlocked: false, rolledBack: false } });
    expect(await call('vaultUnlock', { passphrase })).toMatchObject({ ok: true });
    expect(await call('vaultStatus')).toEqual({ ok: true, value: { exists: true, unlocked: true, rolledBack: false } });
    expect(await call('vaultLock')).toEqual({ ok: true, value: null });
  });
});

process.on('exit', () => fs.rmSync(paths.base, { recursive: true, force: true }));
