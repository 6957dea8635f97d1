/**
 * Approval mode with a real MCP client: the built `mnemo mcp`, driven by the
 * MCP SDK's own Client over stdio, beside the app (no passphrase, so every
 * call goes through the app). The window asks; Allow writes, Deny and the
 * timeout answer Mnemo's own errors; a client that gives up (its timeout, or
 * closing) has its card withdrawn at once, nothing is written, and an Allow
 * pressed on the old card afterwards is refused.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from '@playwright/test';
import { CLI_BUNDLE } from '../../electron/cli/bundle';
import { saveSettings } from '../../electron/core/chat/settings-store';
import { connectApp } from '../../electron/core/mcp/channel-client';
import type { OutsideApproval } from '../../electron/shared/channel';
import { readyApp, type FreshApp } from './helpers';

let app: FreshApp;
let xdg: string;
const clients: Client[] = [];

test.afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await app.cleanup();
  await fs.rm(xdg, { recursive: true, force: true });
});

/** The app in approval mode with MCP access read-write, its state where the CLI looks (XDG_STATE_HOME). */
async function start(opts: { approvalTimeoutMs?: number } = {}) {
  xdg = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-xdg-'));
  const stateDir = path.join(xdg, 'mnemo');
  app = await readyApp({ stateDir, ...opts });
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write', approvalMode: true });
  const vaultId = app.session.unlocked().vaultId;
  await expect
    .poll(async () => {
      const probe = await connectApp({ stateDir, vaultId, via: 'mcp', client: 'probe', readOnly: false });
      await probe?.close();
      return probe !== undefined;
    })
    .toBe(true);
}

/** `mnemo mcp` started by the SDK's Client, as Claude Desktop starts it; no passphrase in its environment. */
async function mcpClient(name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BUNDLE, 'mcp', '--vault', path.join(app.userDataDir, 'vault')],
    env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: xdg, HOME: xdg },
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const create = (file: string) => ({ name: 'memory', arguments: { command: 'create', path: file, file_text: 'Tea: oolong' } });
/** A call as the window makes it (through the real handler table), answered with its Result envelope. */
const invoke = (name: 'channelPending' | 'channelDecide', ...args: unknown[]) =>
  app.page.evaluate(([n, a]) => (window as unknown as { mnemo: Record<string, (...x: unknown[]) => Promise<unknown>> }).mnemo[n]!(...a), [name, args] as const);
const pending = async () => ((await invoke('channelPending')) as { value: OutsideApproval[] }).value;
const card = (file: string, client: string) => app.page.getByRole('group', { name: `Approve create ${file} for ${client}` });
const exists = (file: string) => app.session.unlocked().memory.stat(file) !== undefined;

test('Allow writes the change and the client gets the memory tool’s answer; Deny gets the denial and writes nothing', async () => {
  await start();
  const client = await mcpClient('Claude Desktop');
  const allowed = client.callTool(create('/memories/yes.md'));
  await card('/memories/yes.md', 'Claude Desktop').getByRole('button', { name: 'Approve' }).click();
  expect(text(await allowed)).toBe('File created successfully at: /memories/yes.md');
  expect(exists('/memories/yes.md')).toBe(true);

  const denied = client.callTool(create('/memories/no.md'));
  await card('/memories/no.md', 'Claude Desktop').getByRole('button', { name: 'Deny' }).click();
  expect(await denied).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: The user declined this change to memory. Nothing was changed.' }] });
  await expect(card('/memories/no.md', 'Claude Desktop')).toHaveCount(0);
  expect(exists('/memories/no.md')).toBe(false);
});

test('a change nobody answers in time gets Mnemo’s own error, not the client’s “Request timed out”', async () => {
  await start({ approvalTimeoutMs: 1500 });
  const client = await mcpClient('Cursor');
  const answer = client.callTool(create('/memories/late.md'));
  await expect(card('/memories/late.md', 'Cursor')).toBeVisible();
  expect(await answer).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: The change was not approved in time; nothing was changed.' }] });
  await expect(card('/memories/late.md', 'Cursor')).toHaveCount(0);
  expect(exists('/memories/late.md')).toBe(false);
});

test('a client that gives up on a call: its card goes at once, nothing is written, and a late Allow is refused', async () => {
  await start();
  const client = await mcpClient('Claude Desktop');
  // The SDK's Client times out as it would after 60 s by default, and tells the server with notifications/cancelled.
  const gaveUp = client.callTool(create('/memories/gone.md'), undefined, { timeout: 3000 });
  const shown = card('/memories/gone.md', 'Claude Desktop');
  await expect(shown).toBeVisible();
  const [asked] = await pending();
  await expect(gaveUp).rejects.toThrow(/Request timed out/);
  await expect(shown).toHaveCount(0);
  expect(await pending()).toEqual([]);
  // An Allow from a window that still showed the card (a click on its way) is refused, and writes nothing.
  expect(await invoke('channelDecide', { id: asked!.id, allow: true })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  expect(exists('/memories/gone.md')).toBe(false);

  // The same server carries on: its next change waits for the user as usual.
  const next = client.callTool(create('/memories/next.md'));
  await card('/memories/next.md', 'Claude Desktop').getByRole('button', { name: 'Approve' }).click();
  expect(text(await next)).toBe('File created successfully at: /memories/next.md');
  expect(exists('/memories/gone.md')).toBe(false);
});

test('a client that quits while its change waits: the card goes and nothing is written', async () => {
  await start();
  const client = await mcpClient('Claude Code');
  void client.callTool(create('/memories/quit.md')).catch(() => undefined);
  await expect(card('/memories/quit.md', 'Claude Code')).toBeVisible();
  await client.close();
  await expect(card('/memories/quit.md', 'Claude Code')).toHaveCount(0);
  expect(await pending()).toEqual([]);
  expect(exists('/memories/quit.md')).toBe(false);
});
