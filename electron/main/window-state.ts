/** Remembers the window's size and position between runs (nothing secret: a small JSON file in userData). */
import fs from 'node:fs';
import path from 'node:path';

export interface Bounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

const DEFAULT: Bounds = { width: 1200, height: 800 };
const FILE = 'window-state.json';

export function loadBounds(userDataDir: string): Bounds {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(userDataDir, FILE), 'utf8')) as Partial<Bounds>;
    const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n);
    if (!ok(raw.width) || !ok(raw.height)) return DEFAULT;
    return {
      width: Math.max(640, raw.width!),
      height: Math.max(480, raw.height!),
      ...(ok(raw.x) && ok(raw.y) ? { x: raw.x!, y: raw.y! } : {}),
      maximized: raw.maximized === true,
    };
  } catch {
    return DEFAULT;
  }
}

export function saveBounds(userDataDir: string, bounds: Bounds): void {
  try {
    fs.mkdirSync(userDataDir, { recursive: true });
    fs.writeFileSync(path.join(userDataDir, FILE), JSON.stringify(bounds));
  } catch {
    // Losing the window position is harmless; never fail quitting over it.
  }
}
