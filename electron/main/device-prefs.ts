/**
 * This device's preferences, beside window-state.json in userData: nothing
 * secret and nothing the vault must hold, so they are there before unlock
 * (the unlock screen speaks the chosen language). A missing or unreadable file
 * means the defaults; a bad field is dropped, not trusted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LanguageChoice, type DevicePrefs } from '../shared/languages';

const FILE = 'preferences.json';
export const DEFAULT_PREFS: DevicePrefs = { language: 'system' };

export function loadPrefs(userDataDir: string): DevicePrefs {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(userDataDir, FILE), 'utf8'));
  } catch {
    return DEFAULT_PREFS;
  }
  // Field by field, so one bad value (a language no longer shipped) falls back alone.
  const language = LanguageChoice.safeParse((raw as { language?: unknown } | null)?.language);
  return { ...DEFAULT_PREFS, ...(language.success ? { language: language.data } : {}) };
}

/** Writes the whole set atomically, so a crash leaves the old file or the new one. */
export function savePrefs(userDataDir: string, prefs: DevicePrefs): Promise<void> {
  return writeAtomically(userDataDir, FILE, prefs);
}

/**
 * The vault folder chosen on this computer ("Open a vault…"), in a file of its
 * own beside the preferences: the window can read and set those, never this
 * (only main's folder picker sets it). Kept here, never in the vault, so each
 * computer opens its own copy of a synced vault wherever that lives.
 */
const VAULT_FILE = 'vault-folder.json';

/** The folder chosen last (an absolute path), or undefined: none chosen, or the file unreadable or bad. */
export function loadVaultFolder(userDataDir: string): string | undefined {
  try {
    const dir = (JSON.parse(fs.readFileSync(path.join(userDataDir, VAULT_FILE), 'utf8')) as { dir?: unknown } | null)?.dir;
    return typeof dir === 'string' && path.isAbsolute(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers `dir` as this computer's vault folder; undefined: back to the default (the file is removed). */
export async function saveVaultFolder(userDataDir: string, dir: string | undefined): Promise<void> {
  if (dir === undefined) return fs.promises.rm(path.join(userDataDir, VAULT_FILE), { force: true });
  return writeAtomically(userDataDir, VAULT_FILE, { dir });
}

/**
 * The value of `--vault DIR` (or `--vault=DIR`) on the app's command line, made absolute against `cwd`; undefined
 * when absent. Electron's argv also carries Chromium's switches and, unpackaged, the app's path: only this one is read.
 */
export function vaultSwitch(argv: readonly string[], cwd: string): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    const value = arg === '--vault' ? argv[i + 1] : arg.startsWith('--vault=') ? arg.slice('--vault='.length) : undefined;
    if (value) return path.resolve(cwd, value);
  }
  return undefined;
}

/** Temp file, then rename: a crash leaves the old file or the new one. */
async function writeAtomically(userDataDir: string, name: string, value: unknown): Promise<void> {
  await fs.promises.mkdir(userDataDir, { recursive: true });
  const target = path.join(userDataDir, name);
  const tmp = `${target}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, JSON.stringify(value));
  await fs.promises.rename(tmp, target);
}
