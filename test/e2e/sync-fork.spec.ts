/**
 * This computer finds, while unlocked, that another copy of it (its folders copied to another computer, or restored)
 * wrote under its id, and gives way (core sync/give-way.ts): the window says so at once, in the banner a notice of
 * the unlock uses, and keeps what both wrote. The copy here is a second vault on copies of this one's vault and state
 * folders; its segment arrives as a sync engine leaves it when both changed one file (this computer's kept as a
 * conflict copy).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { expectAccessible, readyApp, type FreshApp } from './helpers';
import { cloneOver } from '../unit/sync/two-computers';

let app: FreshApp;

test.beforeEach(async () => {
  app = await readyApp({ format2: true });
});
test.afterEach(async () => app.cleanup());

test('a copy of this computer writing under its id is told in the window at once; what both wrote is kept', async () => {
  const { page } = app;
  const vault = app.session.unlocked();
  await vault.memory.writeFile('/memories/here.md', 'here', { mode: 'create', source: 'user' });
  await vault.ingest();
  const cloneDir = path.join(app.userDataDir, 'clone-vault');
  const cloneState = path.join(app.userDataDir, 'clone-state');
  await fs.cp(app.session.dir, cloneDir, { recursive: true });
  // (Not the app's own socket: a copied profile has none of it.)
  await fs.cp(path.join(app.userDataDir, 'state'), cloneState, { recursive: true, filter: (src) => !src.endsWith('.sock') });
  const clone = await Vault.open(cloneDir, { stateDir: cloneState, format2: true, ackDelayMs: 0 });
  try {
    await clone.unlockWithRecoveryKey(app.recoveryKey!);
    await clone.memory.writeFile('/memories/from-copy.md', 'written on the copy', { mode: 'create', source: 'user' });
  } finally {
    await clone.close();
  }
  await vault.memory.writeFile('/memories/here-again.md', 'again', { mode: 'create', source: 'user' });
  const me = (await vault.internal.device!(false))!;
  await cloneOver(cloneDir, app.session.dir, me);
  const banner = page.getByRole('status').filter({ hasText: "Another copy of this computer's vault" });
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expectAccessible(page, 'notice: another copy of this computer');
  // Dismissed by keyboard; what both wrote is there.
  await banner.getByRole('button', { name: 'Dismiss' }).focus();
  await page.keyboard.press('Enter');
  await expect(banner).toHaveCount(0);
  expect(await vault.memory.readFile('/memories/here-again.md')).toBe('again');
  expect(await vault.memory.readFile('/memories/from-copy.md')).toBe('written on the copy');
});
