/**
 * A conflict between computers for the window's specs: this computer and "Laptop" (a real vault on a copy of the
 * app's folder, its files carried back as a sync engine would) change the same memories at once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { carry } from '../unit/sync/two-computers';
import type { FreshApp } from './helpers';

/** `plan.md`'s texts: as both computers had it, then Laptop's and this computer's edits (overlapping, so one is set aside). */
export interface PlanTexts {
  base: string;
  laptop: string;
  here: string;
}

const PLAN: PlanTexts = { base: 'title\nmeet on monday\n', laptop: 'title\nmeet on friday\n', here: 'title\nmeet on tuesday\n' };

/**
 * This computer and Laptop (`laptopName`: what Laptop calls itself) change `/memories/plan.md` at once, and Laptop
 * edits `/memories/gone.md` while this computer deletes it; then Laptop's files arrive and the window reloads.
 */
export async function conflictWithLaptop(app: FreshApp, laptopName: string, plan: PlanTexts = PLAN): Promise<void> {
  const here = app.session.unlocked();
  const user = { mode: 'upsert', source: 'user' } as const;
  await here.memory.writeFile('/memories/plan.md', plan.base, user);
  await here.memory.writeFile('/memories/gone.md', 'keep me\n', user);
  // Confirmed (acked) before the copy: another computer applies a record only once a later one of its writer exists.
  await here.ingest();
  const dir = path.join(app.userDataDir, 'laptop');
  await fs.cp(app.session.dir, dir, { recursive: true });
  const laptop = await Vault.open(dir, { stateDir: path.join(app.userDataDir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  await laptop.unlockWithRecoveryKey(app.recoveryKey!);
  await laptop.renameDevice((await laptop.internal.device!(true))!, laptopName);
  await laptop.memory.writeFile('/memories/plan.md', plan.laptop, user);
  await laptop.memory.writeFile('/memories/gone.md', 'keep me, edited\n', user);
  await laptop.close();
  await here.memory.writeFile('/memories/plan.md', plan.here, user);
  await here.memory.remove('/memories/gone.md', 'user');
  await carry(dir, app.session.dir);
  await here.ingest();
  // Nothing tells the window yet that another computer's changes arrived (no watcher): it reads them as it starts.
  await app.page.reload();
  await expect(app.page.locator('header.topbar button.lock')).toBeVisible();
}
