/**
 * Hostile and racing uses of the channel (atk-mcp round).
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { readToken } from '../../../electron/core/mcp/channel-files';
import { ChannelServer } from '../../../electron/core/mcp/channel-server';
import { channelFiles } from '../../../electron/core/mcp/protocol';
import { channelApp, later, raw, tempDir, type ChannelApp } from './rig';

const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};

describe('a change waiting for approval when the user narrows MCP access', () => {
  for (const access of ['read-only', 'off'] as const) {
    it(`is not made once access is ${access}, even if Allow is pressed on its card`, async () => {
      const app = await channelApp();
      await saveSettings(app.vault(), { approvalMode: true });
      const backend = (await app.connect({ client: 'Cursor' }))!;
      const answer = backend.call({ command: 'create', path: '/memories/a.md', file_text: 'x' });
      await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
      // Narrowing is a strengthening: the window may do it on its own.
      expect((await app.call('settingsSet', { mcpAccess: access })).ok).toBe(true);
      const id = pendingOf(app)[0]?.id;
      if (id) await app.call('channelDecide', { id, allow: true });
      expect(await answer).toMatchObject({ is_error: true });
      expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
    });
  }
});

describe('a connection that has not said hello', () => {
  it('is closed as soon as it sends more than a hello can be, not buffered up to a whole frame', async () => {
    const app = await channelApp();
    const r = await raw(app.files.socket);
    const closedEarly = Promise.race([r.closed.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 2000))]);
    r.socket.write('{"type":"hello","client":"' + 'a'.repeat(256 * 1024));
    expect(await closedEarly).toBe(true);
    // Others are served as before.
    expect(await app.connect()).toBeDefined();
  });
});

describe('clients that flood the app with large calls', () => {
  it('are read from only while the queued bytes of all connections stay within the budget, and every call is still served', async () => {
    const dir = await tempDir();
    const vaultId = 'b'.repeat(32);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let served = 0;
    let mostWaiting = 0;
    const budget = 64 * 1024;
    const server: ChannelServer = await ChannelServer.start({
      stateDir: dir,
      vaultId,
      maxQueue: 1000,
      maxQueuedBytes: budget,
      service: {
        open: async () => ({
          project: 'Main',
          call: async () => {
            mostWaiting = Math.max(mostWaiting, server.waitingBytes);
            await gate;
            served++;
            return { content: 'ok', is_error: false };
          },
          list: async () => [],
          read: async () => '',
          onChange: () => () => undefined,
        }),
      },
    });
    later(() => server.stop());
    const files = channelFiles(dir, vaultId);
    const token = (await readToken(files.token))!;
    const CALLS = 40;
    const text = 'x'.repeat(16 * 1024);
    const peers = await Promise.all([0, 1].map(() => raw(files.socket)));
    for (const p of peers) {
      p.hello(token);
      for (let i = 0; i < CALLS; i++) p.send({ type: 'call', id: i + 1, input: { command: 'create', path: `/memories/${i}.md`, file_text: text } });
    }
    // Give the server every chance to read all it would: the peers' writes wait in the kernel instead.
    await vi.waitFor(() => expect(server.waitingBytes).toBeGreaterThan(budget), { timeout: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waitingWhileHeld = server.waitingBytes;
    // Over the budget by at most what one read from each peer can carry (a chunk of 64 KiB, one frame more).
    expect(waitingWhileHeld).toBeLessThanOrEqual(budget + peers.length * (64 * 1024 + text.length + 256));
    open();
    await vi.waitFor(() => expect(peers.map((p) => p.frames.filter((f) => f.type === 'result').length)).toEqual([CALLS, CALLS]), { timeout: 60_000 });
    expect(served).toBe(2 * CALLS);
    expect(peers.flatMap((p) => p.frames.filter((f) => f.type === 'result' && f.result.is_error))).toEqual([]);
    expect(server.waitingBytes).toBe(0);
    expect(mostWaiting).toBeLessThanOrEqual(budget + peers.length * (64 * 1024 + text.length + 256));
  }, 90_000);
});
