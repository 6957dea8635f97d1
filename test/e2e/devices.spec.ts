/**
 * Settings → "This vault on other computers": a synced vault's computers listed, renamed and forgotten, by keyboard.
 * The other computer is a real vault on a copy of the app's folder, its files carried back as a sync engine would.
 */
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { carry } from '../unit/sync/two-computers';
import { expectAccessible, type FreshApp } from './helpers';
import { eachWithLaptop } from './laptop';

let app: FreshApp;
let otherId = '';
const host = (os.hostname().trim() || 'computer').slice(0, 64);

// This computer writes once; then another computer, on a copy of the folder, names itself "Laptop" (laptop.ts).
eachWithLaptop((w) => ({ app, otherId } = w), () => app);

const devicesOf = () => app.session.unlocked().devices();

test('lists this computer and the other one; renames the other and forgets it by keyboard, focus kept where the user is', async () => {
  const { page } = app;
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Other computers' }).press('Enter');
  const heading = page.getByRole('heading', { name: 'This vault on other computers', level: 2 });
  await expect(heading).toBeFocused();
  const section = page.getByRole('region', { name: 'This vault on other computers' });
  await expect(section).toContainText('Changes made on two computers at once are merged');
  const rows = section.getByRole('listitem');
  await expect(rows).toHaveCount(2);
  const mine = rows.filter({ hasText: 'This computer' });
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText(host);
  await expect(mine.getByRole('button', { name: /^Forget/ })).toHaveCount(0);
  const laptop = rows.filter({ hasText: 'Laptop' });
  await expect(laptop).toContainText('Last change:');

  // Rename: Enter opens the field with the name in it; Escape leaves it unchanged; Enter saves.
  const rename = section.getByRole('button', { name: 'Rename Laptop' });
  await rename.focus();
  await page.keyboard.press('Enter');
  const field = section.getByRole('textbox', { name: 'Name' });
  await expect(field).toBeFocused();
  await expect(field).toHaveValue('Laptop');
  await page.keyboard.type(' X');
  await page.keyboard.press('Escape');
  await expect(rename).toBeFocused();
  await page.keyboard.press('Enter');
  await field.fill('   ');
  await page.keyboard.press('Enter');
  await expect(section.getByRole('alert')).toContainText("A computer's name cannot be empty");
  expect((await devicesOf()).find((d) => d.id === otherId)?.name).toBe('Laptop');
  await field.fill('Old laptop');
  await page.keyboard.press('Enter');
  await expect(section.getByRole('status')).toContainText('Name saved');
  await expect(section.getByRole('alert')).toHaveCount(0);
  await expect(section.getByRole('button', { name: 'Rename Old laptop' })).toBeFocused();
  expect((await devicesOf()).find((d) => d.id === otherId)?.name).toBe('Old laptop');

  // Forget: the question first, its button focused; Cancel goes back; confirming marks it forgotten.
  const forget = section.getByRole('button', { name: 'Forget Old laptop…' });
  await forget.focus();
  await page.keyboard.press('Enter');
  const question = section.getByRole('group');
  await expect(question).toContainText('Forget Old laptop? Do this for a computer you no longer use');
  await expect(question.getByRole('button', { name: 'Forget computer' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(forget).toBeFocused();
  expect((await devicesOf()).find((d) => d.id === otherId)?.forgotten).toBe(false);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(section.getByRole('status')).toHaveText('Old laptop is forgotten.');
  await expect(section.getByRole('status')).toBeFocused();
  await expect(rows.filter({ hasText: 'Old laptop' })).toContainText('Forgotten');
  await expect(section.getByRole('button', { name: /^Forget/ })).toHaveCount(0);
  expect((await devicesOf()).find((d) => d.id === otherId)?.forgotten).toBe(true);
  await expectAccessible(page, 'settings: other computers');
});

test('a hostile name from another computer is shown as text, tidied and cut to 64 characters', async () => {
  const { page } = app;
  // The other computer's own build wrote it without tidying (a direct register write, as a modified build could).
  const hostile = '<img src=x onerror="window.__pwned=1">\u202e' + 'A'.repeat(200);
  const dir = path.join(app.userDataDir, 'laptop');
  const laptop = await Vault.open(dir, { stateDir: path.join(app.userDataDir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  await laptop.unlockWithRecoveryKey(app.recoveryKey!);
  const { regOp } = await import('../../electron/core/vault/sync/build');
  const s = (laptop as unknown as { session2: { view: Parameters<typeof regOp>[0]; commit(op: unknown): Promise<unknown> } }).session2;
  await s.commit(regOp(s.view, `device-label:${otherId}`, hostile));
  await laptop.close();
  await carry(dir, app.session.dir);
  // Settings shown again: the list is read again, with what the sync brought.
  await page.getByRole('tab', { name: 'Chat' }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Other computers' }).click();
  const shown = [...`<img src=x onerror="window.__pwned=1"> ${'A'.repeat(200)}`].slice(0, 64).join('');
  await expect(page.locator('ul.devices strong').filter({ hasText: '<img' })).toHaveText(shown);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.locator('ul.devices img')).toHaveCount(0);
});
