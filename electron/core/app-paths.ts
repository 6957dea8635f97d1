import os from 'node:os';
import path from 'node:path';

/** The product name Electron uses for `app.getPath('userData')` (package.json `productName`). */
export const PRODUCT_NAME = 'Mnemo';

/**
 * Electron's `userData` directory for Mnemo, computed the way Electron does it,
 * so the CLI opens the same vault as the desktop app without Electron.
 */
export function defaultUserDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', PRODUCT_NAME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), PRODUCT_NAME);
}

/** Where the vault lives inside a user-data directory. */
export function vaultDirIn(userDataDir: string): string {
  return path.join(userDataDir, 'vault');
}

/**
 * The vault folder asked for when starting: `--vault DIR` (its value, `flag`), else `MNEMO_VAULT`, else none.
 * The CLI and the app read it alike; what each does without one is its own (the CLI: the app's default folder;
 * the app: the folder chosen last on this computer, else its default).
 */
export function requestedVaultDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flag || env.MNEMO_VAULT || undefined;
}

/** The vault the CLI opens when neither `--vault` nor `MNEMO_VAULT` is given. */
export function defaultVaultDir(env: NodeJS.ProcessEnv = process.env): string {
  return vaultDirIn(defaultUserDataDir(env));
}

/** Where this device keeps per-vault state that must live outside the vault (rollback high-water marks): the per-user state directory: XDG_STATE_HOME, or the platform's usual place. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_STATE_HOME) return path.join(env.XDG_STATE_HOME, 'mnemo');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'Mnemo', 'state');
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'), 'Mnemo', 'state');
  return path.join(os.homedir(), '.local', 'state', 'mnemo');
}
