/**
 * Other apps through the local channel, end to end: a call made with the real
 * channel client (as `mnemo mcp` makes it) shows live in the window and in the
 * review inbox under the app's name; in approval mode the window asks, from
 * whichever tab is open, and the app gets the user's answer or the timeout.
 */
import { expect, test } from '@playwright/test';
import { saveSettings } from '../../electron/core/chat/settings-store';
import type { MemoryBackend } from '../../electron/core/mcp/backend';
import { connectApp } from '../../electron/core/mcp/channel-client';
import { expectAccessible, openMemories, shot, type FreshApp, readyApp } from './helpers';

let app: FreshApp;
const backends: MemoryBackend[] = [];
test.afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  await app.cleanup();
});

/** The app with a vault whose memory other apps may change; `approvalTimeoutMs` as main would be told. */
async function start(opts: { approvalMode?: boolean; approvalTimeoutMs?: number } = {}) {
  app = await readyApp(opts.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: opts.approvalTimeoutMs } : {});
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write', approvalMode: opts.approvalMode ?? false });
}

/** Connects as `mnemo mcp` for `client` would, once the app's channel serves (it starts as the vault unlocks). */
async function connect(client = 'Claude Code'): Promise<MemoryBackend> {
  let backend: MemoryBackend | undefined;
  const vaultId = app.session.unlocked().vaultId;
  await expect.poll(async () => (backend ??= await connectApp({ stateDir: app.stateDir, vaultId, via: 'mcp', client, readOnly: false })) !== undefined).toBe(true);
  backends.push(backend!);
  return backend!;
}

test('a memory another app creates appears in the tree at once and waits in the review inbox under the app’s name', async () => {
  await start();
  const { page } = app;
  await openMemories(page);
  const backend = await connect('Claude Code');
  expect(await backend.call({ command: 'create', path: '/memories/tea.md', file_text: 'Tea: oolong, no sugar' })).toEqual({ content: 'File created successfully at: /memories/tea.md', is_error: false });
  await expect(page.getByRole('treeitem', { name: 'tea.md' })).toBeVisible();
  await expect(page.getByRole('tab', { name: /^Memories/ })).toHaveAccessibleName('Memories 1 to review');
  await page.getByRole('button', { name: 'To review 1', exact: true }).press('Enter');
  const pane = page.getByRole('region', { name: 'To review' });
  await pane.getByRole('list', { name: 'Changes to review' }).getByRole('button', { name: /tea\.md/ }).click();
  // Who wrote it, by the name the app gave: the MCP client, not Claude in a conversation.
  await expect(pane.getByRole('heading', { name: '/memories/tea.md' }).locator('xpath=following-sibling::p[1]')).toContainText('Claude Code (MCP)');
  await expect(pane.getByRole('group', { name: 'Text of version 1' }).locator('.added .text')).toHaveText(['Tea: oolong, no sugar']);
  await expectAccessible(page, 'the review inbox with a change from another app');
});

test('in approval mode the window asks from any tab: Allow writes and answers success, Deny answers the denial', async () => {
  await start({ approvalMode: true });
  const { page } = app;
  await app.session.unlocked().memory.writeFile('/memories/tea.md', 'Tea: green', { mode: 'create', source: 'user' });
  const backend = await connect('Cursor');

  const allowed = backend.call({ command: 'str_replace', path: '/memories/tea.md', old_str: 'green', new_str: 'oolong' });
  const card = page.getByRole('group', { name: 'Approve str_replace /memories/tea.md for Cursor' });
  await expect(card).toBeVisible();
  await expect(card).toContainText('Cursor wants to change /memories/tea.md');
  await expect(card).toContainText('In project Default');
  await expect(card.getByRole('group', { name: 'What str_replace changes in /memories/tea.md' })).toContainText('oolong');
  // The card takes focus, and stays whichever section is shown.
  await expect(card).toBeFocused();
  await expectAccessible(page, 'a change another app asks for');
  await shot(page, 'approval-from-another-app');
  await page.getByRole('tab', { name: /^Memories/ }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Approve' }).press('Enter');
  expect(await allowed).toMatchObject({ is_error: false, content: expect.stringMatching(/^The memory file has been edited\./) });
  await expect(card).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/tea.md')).toBe('Tea: oolong');

  const denied = backend.call({ command: 'delete', path: '/memories/tea.md' });
  const deleteCard = page.getByRole('group', { name: 'Approve delete /memories/tea.md for Cursor' });
  await expect(deleteCard.getByLabel('Text deleted from /memories/tea.md')).toHaveText('Tea: oolong');
  await deleteCard.getByRole('button', { name: 'Deny' }).click();
  expect(await denied).toEqual({ content: 'Error: The user declined this change to memory. Nothing was changed.', is_error: true });
  await expect(deleteCard).toHaveCount(0);
  expect(app.session.unlocked().memory.stat('/memories/tea.md')).toBeDefined();
});

test('a change nobody answers in time is not made, and the app is told so', async () => {
  await start({ approvalMode: true, approvalTimeoutMs: 1500 });
  const { page } = app;
  const backend = await connect('Claude Desktop');
  const answer = backend.call({ command: 'create', path: '/memories/late.md', file_text: 'too late' });
  const card = page.getByRole('group', { name: 'Approve create /memories/late.md for Claude Desktop' });
  await expect(card).toBeVisible();
  expect(await answer).toEqual({ content: 'Error: The change was not approved in time; nothing was changed.', is_error: true });
  await expect(card).toHaveCount(0);
  expect(app.session.unlocked().memory.stat('/memories/late.md')).toBeUndefined();
});
