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

/** Writes the whole set atomically (temp file, then rename), so a crash leaves the old file or the new one. */
export async function savePrefs(userDataDir: string, prefs: DevicePrefs): Promise<void> {
  await fs.promises.mkdir(userDataDir, { recursive: true });
  const target = path.join(userDataDir, FILE);
  const tmp = `${target}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, JSON.stringify(prefs));
  await fs.promises.rename(tmp, target);
}
