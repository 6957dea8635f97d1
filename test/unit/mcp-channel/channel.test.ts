/**
 * The local channel keeps out everyone but this user's own clients and stays
 * healthy whatever a client sends: wrong tokens, wrong versions, oversized or
 * malformed frames, floods, a peer that never reads. Played with the real
 * server in the app's handlers and with raw sockets.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { readToken, writeToken } from '../../../electron/core/mcp/channel-files';
import { ChannelServer } from '../../../electron/core/mcp/channel-server';
import { AppChannelService, LOCKED_MESSAGE } from '../../../electron/core/mcp/channel-service';
import { APPROVAL_TIMEOUT_MS, ApprovalBoard } from '../../../electron/core/mcp/channel-approvals';
import { CallLog } from '../../../electron/core/mcp/calls-log';
import { CONNECT_TIMEOUT_MS, connectApp, DEFAULT_REQUEST_TIMEOUT_MS, openChannel } from '../../../electron/core/mcp/channel-client';
import { CHANNEL_VERSION, channelFiles, MAX_FRAME_BYTES } from '../../../electron/core/mcp/protocol';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { channelApp, KDF, later, PASS, raw, tempDir } from './rig';

const mode = async (p: string) => (await fs.stat(p)).mode & 0o777;
const VIEW = { command: 'view', path: '/memories' };

describe('only this user can use the channel', () => {
  it('keeps the state folder 0700, the socket and the token file 0600, and the token 32 random bytes in hex', async () => {
    const dir = await tempDir();
    // A state folder that exists already, open to others, is closed before anything is put in it.
    await fs.mkdir(path.join(dir, 'state'), { mode: 0o755 });
    await fs.chmod(path.join(dir, 'state'), 0o755);
    const app = await channelApp({ dir });
    expect(await mode(app.stateDir)).toBe(0o700);
    expect(await mode(app.files.socket)).toBe(0o600);
    expect((await fs.lstat(app.files.socket)).isSocket()).toBe(true);
    expect(await mode(app.files.token)).toBe(0o600);
    expect(await fs.readFile(app.files.token, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    // No temporary token file is left beside it.
    expect((await fs.readdir(app.stateDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses and closes a hello with a wrong token', async () => {
    const app = await channelApp();
    const c = await raw(app.files.socket);
    c.hello('0'.repeat(64));
    await c.closed;
    expect(c.frames).toEqual([{ type: 'refused', code: 'BAD_TOKEN', message: expect.any(String) }]);
  });

  it('refuses and closes a hello of another channel version, saying why', async () => {
    const app = await channelApp();
    const c = await raw(app.files.socket);
    c.hello(await app.token(), { version: CHANNEL_VERSION + 1 });
    await c.closed;
    expect(c.frames).toEqual([{ type: 'refused', code: 'VERSION', message: expect.stringMatching(new RegExp(`version ${CHANNEL_VERSION}\\b`)) }]);
  });

  it('refuses a project it does not have, and says so to the caller', async () => {
    const app = await channelApp();
    const refusals: unknown[] = [];
    expect(await app.connect({ project: 'Nowhere', onRefused: (r) => refusals.push(r) })).toBeUndefined();
    expect(refusals).toEqual([{ code: 'NO_PROJECT', message: expect.stringMatching(/no project named “Nowhere”/) }]);
  });

  it('refuses every client while MCP access is off, saying where to turn it on', async () => {
    const app = await channelApp({ access: 'off' });
    expect(await app.open()).toEqual({ refused: { code: 'MCP_OFF', message: expect.stringMatching(/MCP access is off in Mnemo’s Settings/) } });
    const c = await raw(app.files.socket);
    c.hello(await app.token());
    await c.closed;
    expect(c.frames.map((f) => f.type)).toEqual(['refused']);
  });

  it('refuses a hello while the vault is locked', async () => {
    // A server whose app locked between the client finding the token and its hello.
    const dir = await tempDir();
    const service = new AppChannelService({
      vault: () => {
        throw new Error('locked');
      },
      approvals: new ApprovalBoard({ onChange: () => undefined }),
      log: new CallLog({ getJSON: async () => undefined, putJSON: async () => undefined }),
    });
    const server = await ChannelServer.start({ stateDir: dir, vaultId: 'a'.repeat(32), service });
    later(() => server.stop());
    const c = await raw(channelFiles(dir, 'a'.repeat(32)).socket);
    c.hello((await readToken(channelFiles(dir, 'a'.repeat(32)).token))!);
    await c.closed;
    expect(c.frames).toEqual([{ type: 'refused', code: 'LOCKED', message: LOCKED_MESSAGE }]);
  });

  it('is not served while the vault is locked: the token file and the socket are gone, and clients find no app', async () => {
    const app = await channelApp();
    await app.call('vaultLock');
    await expect(fs.stat(app.files.token)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.stat(app.files.socket)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await app.open()).toEqual({ absent: 'no-token' });
    // Unlocking serves again, with a new token.
    expect((await app.call('vaultUnlock', { passphrase: 'correct horse battery staple' })).ok).toBe(true);
    await app.channel.start();
    expect(await app.connect()).toBeDefined();
  });

  it('does not read a token file that is a symlink, a FIFO, or readable by others', async () => {
    const app = await channelApp();
    const real = await fs.readFile(app.files.token, 'utf8');
    const elsewhere = path.join(app.dir, 'elsewhere');
    await fs.writeFile(elsewhere, real, { mode: 0o600 });
    await fs.rm(app.files.token);
    await fs.symlink(elsewhere, app.files.token);
    expect(await readToken(app.files.token)).toBeUndefined();
    expect(await app.open()).toEqual({ absent: 'no-token' });
    await fs.rm(app.files.token);
    execFileSync('mkfifo', ['-m', '600', app.files.token]);
    // Opened without blocking, then refused: a FIFO planted there never hangs the client.
    expect(await readToken(app.files.token)).toBeUndefined();
    await fs.rm(app.files.token);
    await fs.writeFile(app.files.token, real, { mode: 0o644 });
    await fs.chmod(app.files.token, 0o644);
    expect(await readToken(app.files.token)).toBeUndefined();
    await fs.chmod(app.files.token, 0o600);
    expect(await readToken(app.files.token)).toBe(real);
  });

  it('writes a token file whole or not at all: through a temporary file that is renamed', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'x.channel');
    const token = await writeToken(file);
    expect(await readToken(file)).toBe(token);
    expect(await fs.readdir(dir)).toEqual(['x.channel']);
  });
});

describe('a hostile or broken client cannot wedge the app', () => {
  it('closes a connection whose line is longer than a frame may be, and serves others as before', async () => {
    const app = await channelApp();
    const c = await raw(app.files.socket);
    c.hello(await app.token());
    await vi.waitFor(() => expect(c.frames[0]?.type).toBe('welcome'));
    c.socket.write(Buffer.alloc(MAX_FRAME_BYTES + 1, 0x61));
    await c.closed;
    const other = await app.connect();
    expect((await other!.call(VIEW)).is_error).toBe(false);
  });

  it('closes a connection on a frame that is not JSON, a call before hello, a second hello or a frame that fails the schema', async () => {
    const app = await channelApp();
    const token = await app.token();
    const bad: Array<(c: Awaited<ReturnType<typeof raw>>) => void> = [
      (c) => c.socket.write('{not json\n'),
      (c) => c.send({ type: 'call', id: 1, input: VIEW }),
      (c) => (c.hello(token), c.hello(token)),
      (c) => (c.hello(token), c.send({ type: 'call', id: -1, input: VIEW })),
      (c) => (c.hello(token), c.send({ type: 'read', id: 1, path: 'x'.repeat(5000) })),
      (c) => (c.hello(token), c.send({ type: 'bogus', id: 1 })),
    ];
    for (const send of bad) {
      const c = await raw(app.files.socket);
      send(c);
      await c.closed;
      expect(c.frames.filter((f) => f.type !== 'welcome')).toEqual([]);
    }
    expect((await (await app.connect())!.call(VIEW)).is_error).toBe(false);
  });

  it('answers 1,000 calls sent at once: a bounded queue runs some, the rest get an error at once, and nothing is wedged', async () => {
    const app = await channelApp();
    const c = await raw(app.files.socket);
    c.hello(await app.token());
    let batch = '';
    for (let id = 1; id <= 1000; id++) batch += `${JSON.stringify({ type: 'call', id, input: VIEW })}\n`;
    c.socket.write(batch);
    await vi.waitFor(() => expect(c.frames.filter((f) => f.type === 'result')).toHaveLength(1000), { timeout: 30_000 });
    const results = c.frames.flatMap((f) => (f.type === 'result' ? [f] : []));
    expect(new Set(results.map((r) => r.id)).size).toBe(1000);
    const busy = results.filter((r) => r.result.is_error && /Too many memory calls/.test(r.result.content));
    const served = results.filter((r) => !r.result.is_error);
    expect(busy.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(busy.length + served.length).toBe(1000);
    // The connection and the app are still usable.
    c.send({ type: 'call', id: 1001, input: VIEW });
    await vi.waitFor(() => expect(c.frames.some((f) => f.type === 'result' && f.id === 1001 && !f.result.is_error)).toBe(true));
    expect((await (await app.connect())!.call(VIEW)).is_error).toBe(false);
  });

  it('cuts off a client that never reads its answers instead of buffering them', async () => {
    const app = await channelApp({ channel: { limits: { maxUnread: 1024 * 1024 } } });
    await app.vault().memory.writeFile('/memories/big.md', 'x'.repeat(600_000), { mode: 'create', source: 'user' });
    const c = await raw(app.files.socket);
    c.socket.pause();
    c.hello(await app.token());
    let batch = '';
    for (let id = 1; id <= 30; id++) batch += `${JSON.stringify({ type: 'read', id, path: '/memories/big.md' })}\n`;
    c.socket.write(batch);
    await vi.waitFor(() => expect(app.channel.status()).toMatchObject({ serving: true, connections: 0 }), { timeout: 20_000 });
    expect((await (await app.connect())!.call(VIEW)).is_error).toBe(false);
  });

  it('refuses connections past the limit with BUSY', async () => {
    const app = await channelApp({ channel: { limits: { maxConnections: 2 } } });
    const a = await app.connect();
    const b = await app.connect();
    expect(a && b).toBeTruthy();
    expect(await app.open()).toEqual({ refused: { code: 'BUSY', message: expect.any(String) } });
    await a!.close();
    await vi.waitFor(() => expect(app.channel.status().connections).toBe(1));
    expect(await app.connect()).toBeDefined();
  });

  it('gives up on an answer that does not come in time, and says the change may or may not have been made', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const backend = await app.connect({ requestTimeoutMs: 300 });
    expect(await backend!.call({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toEqual({ content: expect.stringMatching(/^Error: The Mnemo app did not answer in time; the change may or may not have been made/), is_error: true });
  });

  it('by default waits longer for an answer than a change waits for the user', async () => {
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBeGreaterThan(APPROVAL_TIMEOUT_MS);
    const app = await channelApp({ channel: { approvalTimeoutMs: 200 } });
    await saveSettings(app.vault(), { approvalMode: true });
    const backend = await app.connect();
    // The app's timeout answers first, with its own words: the client never cut it short.
    expect(await backend!.call({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toMatchObject({ content: expect.stringMatching(/not approved in time/) });
  });

  it('tells an app that accepts and never answers (slow) from one that is gone (no answer), and waits long enough for a busy one', async () => {
    // A local hello answers in milliseconds; a loaded CI machine once took the app for absent at 5 s.
    expect(CONNECT_TIMEOUT_MS).toBeGreaterThanOrEqual(15_000);
    const stateDir = path.join(await tempDir(), 'state');
    await fs.mkdir(stateDir, { mode: 0o700 });
    const vaultId = 'ab'.repeat(16);
    const files = channelFiles(stateDir, vaultId);
    await writeToken(files.token);
    const opts = { stateDir, vaultId, via: 'cli' as const, client: 'c', readOnly: false, connectTimeoutMs: 300 };
    // Nothing listens on the socket (a killed app's token left behind): refused at once.
    expect(await openChannel(opts)).toEqual({ absent: 'no-answer' });
    const accepted: net.Socket[] = [];
    const hung = net.createServer((s) => void accepted.push(s));
    await new Promise<void>((resolve) => hung.listen(files.socket, resolve));
    later(async () => (accepted.forEach((s) => s.destroy()), hung.close()));
    let told = 0;
    expect(await connectApp({ ...opts, onSlow: () => told++ })).toBeUndefined();
    expect(told).toBe(1);
    expect(await openChannel(opts)).toEqual({ absent: 'slow' });
  });

  it('closes a connection that never says hello', async () => {
    const app = await channelApp({ channel: { limits: { helloTimeoutMs: 100 } } });
    const c = await raw(app.files.socket);
    await c.closed;
    expect(c.frames).toEqual([]);
  });
});

describe('a process using the channel', () => {
  it('ends on its own once it has closed its connection, with exit code 0 (the idle connection holds no process open)', async () => {
    const app = await channelApp();
    const tsx = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');
    const child = spawn(tsx, [path.join(import.meta.dirname, 'close-child.ts'), app.stateDir, app.vaultId], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ is_error: false, content: expect.stringMatching(/^Here're the files/) });
  });
});

describe('locking and restarting', () => {
  it('tells every connection the vault locked, closes it and removes the token file', async () => {
    const app = await channelApp();
    const backend = await app.connect();
    const gone = vi.fn();
    backend!.onGone(gone);
    const c = await raw(app.files.socket);
    c.hello(await app.token());
    await vi.waitFor(() => expect(c.frames[0]?.type).toBe('welcome'));
    await app.call('vaultLock');
    await c.closed;
    expect(c.frames.at(-1)).toEqual({ type: 'locked' });
    await vi.waitFor(() => expect(gone).toHaveBeenCalledTimes(1));
    expect(await backend!.call(VIEW)).toMatchObject({ is_error: true, content: expect.stringMatching(/closed before it answered/) });
    await expect(fs.stat(app.files.token)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('replaces a stale socket left by a killed app, and leaves a live one or anything else alone', async () => {
    const dir = await tempDir();
    // Learn the vault id first, so the dead app's socket sits where this vault's will go.
    const first = await channelApp({ dir });
    const socket = first.files.socket;
    await first.session.close();
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    await new Promise((resolve) => child.once('exit', resolve));
    expect((await fs.lstat(socket)).isSocket()).toBe(true);
    // The same vault folder, reopened by a new app: its channel takes the dead one's place.
    const reopened = await reopen(dir);
    expect(reopened.channel.status()).toMatchObject({ serving: true });
    expect((await (await reopened.connect())!.call(VIEW)).is_error).toBe(false);
    await reopened.session.close();

    // A live listener (another process holding the name) is never taken over.
    const live = net.createServer().listen(socket);
    await new Promise((r) => live.once('listening', r));
    const blocked = await reopen(dir);
    expect(blocked.channel.status()).toEqual({ serving: false, connections: 0, problem: expect.stringMatching(/Another Mnemo/) });
    await blocked.session.close();
    await new Promise((r) => live.close(r));

    // Nor is a file that is not a socket.
    await fs.writeFile(socket, 'keep me');
    const refused = await reopen(dir);
    expect(refused.channel.status().problem).toMatch(/Something other than Mnemo’s channel/);
    expect(await fs.readFile(socket, 'utf8')).toBe('keep me');
    expect(JSON.stringify(refused.channel.status())).not.toContain(dir);
    await refused.session.close();
  });
});

/** The app on an existing user-data folder, unlocked: as after a restart. */
async function reopen(dir: string) {
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined, channel: {} });
  later(() => made.session.close());
  expect((await dispatch(made.handlers, 'vaultUnlock', [{ passphrase: PASS }])).ok).toBe(true);
  await made.channel.start();
  const vaultId = made.session.unlocked().vaultId;
  return { ...made, connect: () => connectApp({ stateDir: path.join(dir, 'state'), vaultId, via: 'mcp', client: 'Claude Code', readOnly: false }) };
}
