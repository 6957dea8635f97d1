/**
 * Settings → "Use this memory in other apps", as a person uses it by keyboard:
 * the configurations for Claude Desktop, Claude Code and Cursor with working
 * Copy buttons, the access switch (widening it asks for the passphrase, as
 * every weakening does), and the log of other apps' calls, without contents.
 */
import { expect, test } from '@playwright/test';
import { loadSettings, saveSettings } from '../../electron/core/chat/settings-store';
import type { MemoryBackend } from '../../electron/core/mcp/backend';
import { connectApp } from '../../electron/core/mcp/channel-client';
import { Projects } from '../../electron/core/projects/store';
import { expectAccessible, PASSPHRASE, readyApp, shot, type FreshApp } from './helpers';

let app: FreshApp;
const backends: MemoryBackend[] = [];
test.afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  await app.cleanup();
});

const section = () => app.page.getByRole('region', { name: 'Use this memory in other apps' });

test('the configurations for each project are shown and copied, with the passphrase never in them', async () => {
  app = await readyApp();
  const { page } = app;
  await new Projects(app.session.unlocked()).create('Garden');
  await page.getByRole('tab', { name: 'Settings' }).click();
  const desktop = section().getByLabel('Claude Desktop configuration', { exact: true });
  await expect(desktop).toHaveValue(/"mnemo": \{\s+"command": "mnemo",\s+"args": \[\s+"mcp"\s+\]/);
  await expect(section().getByLabel('Claude Desktop on Windows configuration', { exact: true })).toHaveValue(/"command": "cmd",\s+"args": \[\s+"\/c",\s+"mnemo",\s+"mcp"/);
  await expect(section().getByLabel('Claude Code configuration', { exact: true })).toHaveValue('claude mcp add --scope user mnemo -- mnemo mcp');
  await expect(section().getByLabel('Cursor configuration', { exact: true })).toHaveValue(/"mcpServers"/);
  await expectAccessible(page, 'settings for other apps');

  // Another project, read-only, by keyboard.
  await section().getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Garden' });
  await section().getByLabel(/Read-only configuration/).check();
  const code = section().getByLabel('Claude Code configuration', { exact: true });
  await expect(code).toHaveValue('claude mcp add --scope user mnemo-garden -- mnemo mcp --project Garden --read-only');
  const copy = section().getByRole('button', { name: 'Copy the Claude Code configuration' });
  await copy.focus();
  await page.keyboard.press('Enter');
  await expect(section().getByRole('status').filter({ hasText: 'Copied.' })).toBeVisible();
  expect(app.clipboard.text).toBe(await code.inputValue());
  await section().getByRole('button', { name: 'Copy the Cursor configuration' }).click();
  await expect.poll(() => app.clipboard.text).toBe(await section().getByLabel('Cursor configuration', { exact: true }).inputValue());
  const everything = await section().evaluate((el) => el.textContent + [...el.querySelectorAll('textarea')].map((t) => t.value).join(''));
  expect(everything).not.toContain(PASSPHRASE);
  expect(everything).not.toContain(app.userDataDir);
});

test('access is off until the user allows it with the passphrase; then the log lists each call without its contents', async () => {
  app = await readyApp();
  const { page } = app;
  await page.getByRole('tab', { name: 'Settings' }).click();
  const vaultId = app.session.unlocked().vaultId;
  const refusals: string[] = [];
  const connect = () => connectApp({ stateDir: app.stateDir, vaultId, via: 'mcp', client: 'Claude Code', readOnly: false, onRefused: (r) => refusals.push(r.code) });
  await expect.poll(async () => (await connect(), refusals.at(-1))).toBe('MCP_OFF');
  await expect(section().getByRole('radio', { name: 'No access (other apps are refused)' })).toBeChecked();

  await section().getByRole('radio', { name: 'View and change memories' }).check();
  await section().getByRole('button', { name: 'Save access for other apps' }).press('Enter');
  // Main asked in its own dialog (cancelled here); the window asks for the passphrase in place.
  const ask = page.getByRole('alertdialog', { name: 'Save with passphrase' });
  await expect(ask).toContainText(/view and change your memories/);
  await expect(ask.getByLabel('Passphrase (to allow this change)')).toBeFocused();
  expect((await loadSettings(app.session.unlocked())).mcpAccess).toBe('off');
  await expectAccessible(page, 'allowing other apps, asking for the passphrase');
  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(section().getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  expect((await loadSettings(app.session.unlocked())).mcpAccess).toBe('read-write');

  const backend = (await connect())!;
  expect(backend).toBeDefined();
  backends.push(backend);
  const secret = 'Door code is 4417';
  await backend.call({ command: 'create', path: '/memories/house.md', file_text: secret });
  await backend.call({ command: 'view', path: '/memories/house.md' });
  await backend.call({ command: 'view', path: '/memories/missing.md' });
  const rows = section().getByRole('table').getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText(/Claude Code\s*Default\s*view\s*\/memories\/missing\.md\s*Error/);
  await expect(rows.nth(2)).toContainText(/view\s*\/memories\/house\.md\s*Done/);
  await expect(rows.nth(3)).toContainText(/create\s*\/memories\/house\.md\s*Done/);
  await expect(section()).not.toContainText(secret);
  // Said plainly: calls served while Mnemo is locked or closed are not in this log.
  await expect(section()).toContainText('Only calls made through Mnemo while it is unlocked are listed here.');
  await expectAccessible(page, 'the log of other apps’ calls');
  await section().getByRole('table').scrollIntoViewIfNeeded();
  await shot(page, 'settings-other-apps');

  // Narrowing needs nothing: back to view only, and the next write is refused.
  await section().getByRole('radio', { name: 'View memories only' }).check();
  await section().getByRole('button', { name: 'Save access for other apps' }).click();
  await expect.poll(async () => (await loadSettings(app.session.unlocked())).mcpAccess).toBe('read-only');
  expect(await backend.call({ command: 'create', path: '/memories/b.md', file_text: 'x' })).toMatchObject({ is_error: true, content: expect.stringMatching(/view this memory but not change it/) });
});

test('an app that has connected is listed by its name: set to view only at once, back to changing memory with the passphrase', async () => {
  app = await readyApp();
  const { page } = app;
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write' });
  const vaultId = app.session.unlocked().vaultId;
  let cursor: MemoryBackend | undefined;
  await expect.poll(async () => (cursor ??= await connectApp({ stateDir: app.stateDir, vaultId, via: 'mcp', client: 'Cursor', readOnly: false })) !== undefined).toBe(true);
  backends.push(cursor!);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(section()).toContainText('it does not keep a hostile program out');
  const pick = section().getByRole('combobox', { name: 'What Cursor may do' });
  await expect(pick).toHaveValue('read-write');
  await pick.selectOption('read-only');
  await expect(section().getByRole('status').filter({ hasText: 'Cursor: view only.' })).toBeVisible();
  expect(await cursor!.call({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toMatchObject({ is_error: true, content: expect.stringContaining('Cursor is set to view only in Mnemo’s Settings') });

  await pick.selectOption('read-write');
  const ask = page.getByRole('alertdialog', { name: 'Allow with passphrase' });
  await expect(ask).toContainText('Let the app named “Cursor” change your memories, not only view them');
  await expect(ask.getByLabel('Passphrase (to allow this change)')).toBeFocused();
  await expectAccessible(page, 'letting an app change memory, asking for the passphrase');
  expect(await cursor!.call({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toMatchObject({ is_error: true });
  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(section().getByRole('status').filter({ hasText: 'Cursor: view and change.' })).toBeVisible();
  await expect(pick).toHaveValue('read-write');
  expect(await cursor!.call({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
});

test('a known app is forgotten with its Forget button; a view-only one only with the passphrase, as the hint says', async () => {
  app = await readyApp();
  const { page } = app;
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write' });
  const vaultId = app.session.unlocked().vaultId;
  let cursor: MemoryBackend | undefined;
  await expect.poll(async () => (cursor ??= await connectApp({ stateDir: app.stateDir, vaultId, via: 'mcp', client: 'Cursor', readOnly: false })) !== undefined).toBe(true);
  backends.push(cursor!);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await section().getByRole('combobox', { name: 'What Cursor may do' }).selectOption('read-only');
  await expect(section().getByRole('status').filter({ hasText: 'Cursor: view only.' })).toBeVisible();
  await expect(section()).toContainText('an app set to view only can then change memory unless');
  await section().getByRole('button', { name: 'Forget Cursor' }).click();
  const ask = page.getByRole('alertdialog', { name: 'Forget with passphrase' });
  await expect(ask).toContainText('Let the app named “Cursor” change your memories, not only view them');
  await expect(section().getByRole('combobox', { name: 'What Cursor may do' })).toHaveValue('read-only');
  await page.keyboard.type(PASSPHRASE);
  await page.keyboard.press('Enter');
  await expect(section().getByRole('status').filter({ hasText: 'Cursor forgotten' })).toBeVisible();
  await expect(section().getByRole('combobox', { name: 'What Cursor may do' })).toHaveCount(0);
  await expect(section()).toContainText('No app has connected yet.');
});
