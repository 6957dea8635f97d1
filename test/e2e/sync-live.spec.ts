/**
 * A vault another computer writes at the same time (format 2): what it writes appears in the open window as the
 * files arrive, without a restart or a lock (core sync/follow.ts, started by the session while unlocked). The other
 * computer here is a second vault on the same folder with its own state folder, as a sync engine would leave it.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { Vault } from '../../electron/core/vault/vault';
import { expectAccessible, lock, openMemories, PASSPHRASE, readyApp, typeInEditor, unlock, type FreshApp } from './helpers';

let app: FreshApp;
let laptop: Vault | undefined;

test.beforeEach(async () => {
  app = await readyApp({ format2: true });
  // A first change makes the vault multi-device on disk (a format-1 vault keeps its in-folder lock until then).
  await app.session.unlocked().setHistoryDepth(25);
  laptop = await Vault.open(app.session.dir, { stateDir: path.join(app.userDataDir, 'laptop-state'), format2: true, ackDelayMs: 0 });
  await laptop.unlockWithRecoveryKey(app.recoveryKey!);
  await openMemories(app.page);
});
test.afterEach(async () => {
  await laptop?.close();
  laptop = undefined;
  await app.cleanup();
});

test('memories written, changed and deleted on another computer show up in the tree and the open editor', async () => {
  const { page } = app;
  await laptop!.memory.writeFile('/memories/from-laptop.md', 'Written on the laptop.', { mode: 'create', source: 'user' });
  const item = page.getByRole('treeitem', { name: 'from-laptop.md' });
  await expect(item).toBeVisible({ timeout: 20_000 });
  await item.click();
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await expect(editor).toContainText('Written on the laptop.');

  // Changed there while it is open here, unedited: the editor shows the new text.
  await laptop!.memory.writeFile('/memories/from-laptop.md', 'Written on the laptop, then changed there.', { mode: 'update', source: 'user' });
  await expect(editor).toContainText('then changed there.', { timeout: 20_000 });

  // Changed there while edited here: what was typed stays, and the user is told.
  await typeInEditor(page, 'Typed here and not saved.');
  await laptop!.memory.writeFile('/memories/from-laptop.md', 'A third text from the laptop.', { mode: 'update', source: 'user' });
  await expect(page.getByRole('status')).toContainText(/changed/i, { timeout: 20_000 });
  await expect(editor).toContainText('Typed here and not saved.');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();

  await laptop!.memory.writeFile('/memories/second.md', 'another', { mode: 'create', source: 'user' });
  await expect(page.getByRole('treeitem', { name: 'second.md' })).toBeVisible({ timeout: 20_000 });
  await laptop!.memory.remove('/memories/second.md', 'user');
  await expect(page.getByRole('treeitem', { name: 'second.md' })).toHaveCount(0, { timeout: 20_000 });
});

test('nothing is followed while locked, and following starts again at unlock', async () => {
  const { page } = app;
  await lock(page);
  await laptop!.memory.writeFile('/memories/while-locked.md', 'written while this one was locked', { mode: 'create', source: 'user' });
  await unlock(page);
  await openMemories(page);
  await expect(page.getByRole('treeitem', { name: 'while-locked.md' })).toBeVisible();
  await laptop!.memory.writeFile('/memories/after-unlock.md', 'written after the unlock', { mode: 'create', source: 'user' });
  await expect(page.getByRole('treeitem', { name: 'after-unlock.md' })).toBeVisible({ timeout: 20_000 });
});

test('a conversation started on another computer appears in the conversation list', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: 'Chat' }).click();
  const now = Date.now();
  await new Conversations(laptop!).save({ id: '0123456789abcdef', title: 'Planned on the laptop', created: now, updated: now, messages: [], transcript: [] });
  await expect(page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Planned on the laptop', exact: true })).toBeVisible({ timeout: 20_000 });
});

test('a passphrase changed on another computer: the old one is refused saying so, the new one opens, by keyboard', async () => {
  const { page } = app;
  await lock(page);
  await laptop!.changePassphrase(PASSPHRASE, 'set on the laptop, long enough');
  const field = page.getByLabel('Passphrase', { exact: true });
  await field.fill(PASSPHRASE);
  await field.press('Enter');
  await expect(page.getByRole('alert')).toContainText('changed on another computer');
  await expect(field).toBeFocused();
  await unlock(page, 'set on the laptop, long enough');
  await expectAccessible(page, 'the window after an unlock with a passphrase set elsewhere');
});
