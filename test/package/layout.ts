/** Where `npm run test:package` writes the packed app, and how the tests lay it out as installed. */
import fs from 'node:fs';
import path from 'node:path';
import asar from '@electron/asar';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const RESOURCES = path.join(ROOT, 'dist/pack/linux-unpacked/resources');
export const ASAR = path.join(RESOURCES, 'app.asar');

/**
 * Extracts app.asar into a real folder named app.asar under `resources` (and
 * copies any app.asar.unpacked beside it), so every path the bundle computes
 * is the one an installed app uses. `resources` must lie outside the worktree:
 * Node looks for modules in every parent folder, and the worktree's own
 * node_modules would hide a module the installed app cannot find.
 */
export function extractInstalledLayout(resources: string): string {
  fs.mkdirSync(resources, { recursive: true });
  asar.extractAll(ASAR, path.join(resources, 'app.asar'));
  if (fs.existsSync(`${ASAR}.unpacked`)) fs.cpSync(`${ASAR}.unpacked`, path.join(resources, 'app.asar.unpacked'), { recursive: true });
  return path.join(resources, 'app.asar/dist/main/index.js');
}
