/**
 * The set-up of the Settings → "Other computers" specs: this computer's window (format 2) has written once; a second
 * computer, on a copy of the folder, names itself "Laptop", and its files are carried back as a sync engine would.
 * `eachWithLaptop` registers it around each test and tells the spec the app and both computers' ids.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { carry } from '../unit/sync/two-computers';
import { readyApp, type FreshApp } from './helpers';

export interface WithLaptop {
  app: FreshApp;
  /** The laptop's device id. */
  otherId: string;
  /** This computer's device id. */
  myId: string;
}

/** The laptop's vault folder (a copy of the app's, written by the laptop). */
export const laptopDir = (app: FreshApp): string => path.join(app.userDataDir, 'laptop');

/** Opens the laptop's vault, unlocked; the caller closes it (then `carry` brings its files to the app's folder). */
export async function openLaptop(app: FreshApp): Promise<Vault> {
  const laptop = await Vault.open(laptopDir(app), { stateDir: path.join(app.userDataDir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  await laptop.unlockWithRecoveryKey(app.recoveryKey!);
  return laptop;
}

/**
 * Before each test, the app and the laptop as above, with Settings shown; after it, the app's folders go: those of
 * `current()`, the app the spec holds then (a test may start another in its place, having cleaned up the first).
 */
export function eachWithLaptop(set: (w: WithLaptop) => void, current: () => FreshApp): void {
  let app: FreshApp | undefined;
  test.beforeEach(async () => {
    app = await readyApp({ format2: true });
    await app.session.unlocked().setHistoryDepth(25);
    await fs.cp(app.session.dir, laptopDir(app), { recursive: true });
    const laptop = await openLaptop(app);
    const otherId = (await laptop.internal.device!(true))!;
    await laptop.renameDevice(otherId, 'Laptop');
    await laptop.close();
    await carry(laptopDir(app), app.session.dir);
    const myId = (await app.session.unlocked().devices()).find((d) => d.current)?.id ?? '';
    set({ app, otherId, myId });
    await app.page.getByRole('tab', { name: 'Settings' }).click();
  });
  test.afterEach(async () => (app ? current().cleanup() : undefined));
}

/** Shows the "Other computers" section of Settings and returns its region. */
export async function openDevicesSection(app: FreshApp) {
  await app.page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Other computers' }).click();
  return app.page.getByRole('region', { name: 'This vault on other computers' });
}
