/**
 * build/electron-builder.yml as electron-builder itself reads it: fuse names
 * that @electron/fuses knows (a misspelt fuse would silently stay at Electron's
 * default), the installer metadata each target shows users, and icons in every
 * size the targets want. None of this needs the packed layout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FuseV1Options } from '@electron/fuses';
import { getConfig } from 'app-builder-lib/out/util/config/config';
import type { Configuration } from 'electron-builder';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_NAME } from '../../electron/core/app-paths';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { description: string };
let config: Configuration;

beforeAll(async () => {
  config = await getConfig(ROOT, path.join(ROOT, 'build/electron-builder.yml'), null);
});

/** electron-builder's fuse keys that are not @electron/fuses' FuseV1Options names (electron-builder lower-cases the first letter). */
function unknownFuses(fuses: Record<string, unknown>): string[] {
  const known = new Set(Object.keys(FuseV1Options).filter((k) => Number.isNaN(Number(k))));
  return Object.keys(fuses).filter((k) => k !== 'resetAdHocDarwinSignature' && !known.has(k[0]!.toUpperCase() + k.slice(1)));
}

/** Width and height from a PNG's IHDR chunk, or undefined when the file is not a PNG. */
function pngSize(file: string): { width: number; height: number } | undefined {
  const b = fs.readFileSync(file);
  if (b.length < 24 || !b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) || b.toString('ascii', 12, 16) !== 'IHDR') return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('Electron fuses', () => {
  it('names only fuses that @electron/fuses defines, so none is silently ignored', () => {
    expect(unknownFuses({ runAsnode: false, onlyLoadAppFromAsar: true })).toEqual(['runAsnode']);
    expect(unknownFuses(config.electronFuses as Record<string, unknown>)).toEqual([]);
  });

  it('turns off running as Node, NODE_OPTIONS, the inspector switches and file:// privileges, and turns on asar integrity and asar-only loading', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      grantFileProtocolExtraPrivileges: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('packs everything into app.asar and unpacks only the native binaries of the vault lock (the OS cannot load them from an archive)', () => {
    // Not the whole package (electron-builder's smart unpack would take its JavaScript out too): only the binaries.
    expect(config.asar).toEqual({ smartUnpack: false });
    expect(config.asarUnpack).toEqual(['node_modules/fs-native-extensions/prebuilds/**/*.node']);
  });
});

describe('installer metadata', () => {
  it('names the app as the user-data folder does, under a reverse-DNS app id', () => {
    expect(config.productName).toBe(PRODUCT_NAME);
    expect(config.appId).toMatch(/^[a-z][a-z0-9]*(\.[a-z][a-z0-9-]*){2,}$/);
  });

  it('gives Linux a desktop entry with Name, Comment, Categories and a StartupWMClass matching Electron’s app id', () => {
    const linux = config.linux!;
    const entry = (linux.desktop as { entry: Record<string, string> }).entry;
    expect(entry.Name).toBe(PRODUCT_NAME);
    // electron-builder writes Comment from the description and Categories from the category.
    const comment = linux.description ?? pkg.description;
    expect(comment).toMatch(/^[^\n]{10,100}$/);
    const categories = linux.category!.split(';').filter(Boolean);
    expect(categories[0]).toMatch(/^(AudioVideo|Audio|Video|Development|Education|Game|Graphics|Network|Office|Science|Settings|System|Utility)$/);
    if (categories.includes('Chat')) expect(categories).toContain('Network');
    const desktopName = (config.extraMetadata as { desktopName?: string }).desktopName;
    expect(desktopName).toMatch(/^[a-z0-9.-]+\.desktop$/);
    expect(linux.syncDesktopName).toBe(true);
    expect(entry.StartupWMClass).toBe(desktopName!.replace(/\.desktop$/, ''));
    expect(linux.executableName).toMatch(/^[a-z0-9-]+$/);
    // The packaged app must not take the command-line tool's name on the PATH: other apps run `mnemo mcp`.
    expect(linux.executableName).not.toBe('mnemo');
  });

  it('gives the deb package a maintainer with an e-mail address, a synopsis, a description and a section', () => {
    const deb = { ...config.linux, ...config.deb };
    expect(deb.maintainer).toMatch(/^[^<>]+ <[^@\s<>]+@[^@\s<>]+\.[a-z]+>$/);
    expect(deb.synopsis).toMatch(/^[^\n]{10,80}$/);
    expect(config.deb!.description!.length).toBeGreaterThan(40);
    expect(config.deb!.packageCategory).toMatch(/^[a-z]+$/);
  });
});

describe('icons', () => {
  it('has a square PNG for every Linux size from 16 to 512, each as large as its name says', () => {
    const dir = path.join(ROOT, config.linux!.icon!);
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      expect(pngSize(path.join(dir, `${size}x${size}.png`)), `${size}x${size}.png`).toEqual({ width: size, height: size });
    }
    for (const f of fs.readdirSync(dir)) {
      const n = Number(/^(\d+)x\1\.png$/.exec(f)?.[1]);
      expect(pngSize(path.join(dir, f)), f).toEqual({ width: n, height: n });
    }
  });

  it('gives macOS and Windows a square PNG of at least 1024 px, from which electron-builder makes the .icns and .ico', () => {
    for (const icon of [config.mac!.icon!, config.win!.icon!]) {
      const size = pngSize(path.join(ROOT, icon));
      expect(size, icon).toBeDefined();
      expect(size!.width).toBe(size!.height);
      expect(size!.width).toBeGreaterThanOrEqual(1024);
    }
  });
});
