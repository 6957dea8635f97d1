/**
 * Writes the real packaged layout (electron-builder `--dir`) to dist/pack/ with
 * no network: a stand-in Electron distribution replaces the download, nothing
 * is rebuilt, and fuses are left to a real packaging run because they can only
 * be flipped in a real Electron binary. Run after `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, Platform } from 'electron-builder';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const PACK_DIR = path.join(ROOT, 'dist/pack');

/** A folder shaped like an unpacked Electron release for Linux, with a placeholder executable. */
function standInElectron(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-electron-dist-'));
  fs.writeFileSync(path.join(dir, 'electron'), '#!/bin/sh\necho "stand-in for the Electron binary"\nexit 1\n', { mode: 0o755 });
  const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
  fs.writeFileSync(path.join(dir, 'version'), version);
  return dir;
}

const electronDist = standInElectron();
try {
  fs.rmSync(PACK_DIR, { recursive: true, force: true });
  await build({
    targets: Platform.LINUX.createTarget('dir'),
    projectDir: ROOT,
    publish: 'never',
    config: {
      extends: path.join(ROOT, 'build/electron-builder.yml'),
      electronDist,
      directories: { output: PACK_DIR },
      npmRebuild: false,
      electronFuses: null,
    },
  });
} finally {
  fs.rmSync(electronDist, { recursive: true, force: true });
}
