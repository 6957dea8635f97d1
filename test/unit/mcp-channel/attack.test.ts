/**
 * Hostile and racing uses of the channel (atk-mcp round).
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, type ChannelApp } from './rig';

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
    const { raw } = await import('./rig');
    const app = await channelApp();
    const r = await raw(app.files.socket);
    const closedEarly = Promise.race([r.closed.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 2000))]);
    r.socket.write('{"type":"hello","client":"' + 'a'.repeat(256 * 1024));
    expect(await closedEarly).toBe(true);
    // Others are served as before.
    expect(await app.connect()).toBeDefined();
  });
});
