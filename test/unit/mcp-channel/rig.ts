/**
 * The app's handlers with the local channel serving, on a fresh vault in a
 * temporary folder, plus the two ways a test talks to it: the real channel
 * client (`connect`), and a raw socket that sends whatever bytes a hostile
 * client would (`raw`).
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { connectApp, openChannel, type ConnectOptions } from '../../../electron/core/mcp/channel-client';
import { readToken } from '../../../electron/core/mcp/channel-files';
import { CHANNEL_VERSION, channelFiles, type ServerMessage } from '../../../electron/core/mcp/protocol';
import { SecretClipboard } from '../../../electron/main/clipboard';
import type { ChannelHostOptions } from '../../../electron/main/channel-host';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { CallName } from '../../../electron/shared/ipc';
import type { McpAccess } from '../../../electron/shared/settings';

export const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
export const PASS = 'correct horse battery staple';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

export async function tempDir(prefix = 'mnemo-chan-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The app with a vault, serving the channel with `access` (default read-write). */
export async function channelApp(opts: { access?: McpAccess; channel?: ChannelHostOptions; dir?: string; stateDir?: string } = {}) {
  const dir = opts.dir ?? (await tempDir());
  const stateDir = opts.stateDir ?? path.join(dir, 'state');
  const events: Array<{ event: string; payload: unknown }> = [];
  const clipboard = { text: '' };
  const made = createHandlers({
    userDataDir: dir,
    stateDir,
    env: {},
    kdf: KDF,
    pickDirectory: async () => undefined,
    emit: (event, payload) => events.push({ event, payload }),
    clipboard: new SecretClipboard({ write: async (text) => void (clipboard.text = text), readText: async () => clipboard.text, clear: async () => void (clipboard.text = '') }, 'linux'),
    channel: { logFlushMs: 20, ...opts.channel },
  });
  cleanups.push(() => made.session.close());
  const call = (name: CallName, ...args: unknown[]) => dispatch(made.handlers, name, args);
  expect((await call('vaultCreate', { passphrase: PASS })).ok).toBe(true);
  const vault = made.session.unlocked();
  await saveSettings(vault, { mcpAccess: opts.access ?? 'read-write' });
  // The create's announcement starts it; this waits until that start is done.
  await made.channel.start();
  const vaultId = vault.vaultId;
  const files = channelFiles(stateDir, vaultId);
  const base: ConnectOptions = { stateDir, vaultId, via: 'mcp', client: 'Claude Code', readOnly: false };
  const connect = async (o: Partial<ConnectOptions> = {}) => {
    const backend = await connectApp({ ...base, ...o });
    if (backend) cleanups.push(() => backend.close());
    return backend;
  };
  const open = (o: Partial<ConnectOptions> = {}) => openChannel({ ...base, ...o });
  const token = async () => (await readToken(files.token))!;
  return { ...made, dir, stateDir, vaultId, files, events, clipboard, call, connect, open, token, vault: () => made.session.unlocked() };
}
export type ChannelApp = Awaited<ReturnType<typeof channelApp>>;

/** A raw connection: send any bytes, read every frame, know when it closed. */
export async function raw(socketPath: string) {
  const socket = net.connect(socketPath);
  cleanups.push(async () => void socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const frames: ServerMessage[] = [];
  let buffered = '';
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      frames.push(JSON.parse(buffered.slice(0, nl)) as ServerMessage);
      buffered = buffered.slice(nl + 1);
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    frames,
    closed,
    send: (message: unknown) => socket.write(`${JSON.stringify(message)}\n`),
    hello: (token: string, extra: Record<string, unknown> = {}) => socket.write(`${JSON.stringify({ type: 'hello', version: CHANNEL_VERSION, token, via: 'mcp', client: 'Raw', readOnly: false, ...extra })}\n`),
  };
}

/** Runs `fn` at the end of the test (after the app is closed, in reverse order of registration). */
export function later(fn: () => Promise<unknown>): void {
  cleanups.push(fn);
}
