/**
 * A change another app waits to have approved, when that app stops waiting:
 * it cancels the call (an MCP client's `notifications/cancelled`, sent as it
 * gives up), or its connection closes. The card is withdrawn at once, nothing
 * is written, and an Allow pressed on the old card afterwards is refused. A
 * call that says how long its client waits is answered within that, with the
 * app's own words, before the client gives up.
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { NOT_IN_TIME_MESSAGE } from '../../../electron/core/mcp/channel-service';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, type ChannelApp } from './rig';

const create = (p: string) => ({ command: 'create', path: p, file_text: 'Tea: oolong' });

const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};

async function approvalApp() {
  const app = await channelApp();
  await saveSettings(app.vault(), { approvalMode: true });
  return app;
}

describe('a change waiting for the user when its app stops waiting', () => {
  it('is withdrawn when the app cancels the call: the card goes, nothing is written, a late Allow is refused', async () => {
    const app = await approvalApp();
    const backend = (await app.connect({ client: 'Claude Desktop' }))!;
    const cancel = new AbortController();
    const answer = backend.call(create('/memories/a.md'), { signal: cancel.signal });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const { id } = pendingOf(app)[0]!;
    cancel.abort();
    await vi.waitFor(() => expect(pendingOf(app)).toEqual([]));
    expect(await app.call('channelPending')).toEqual({ ok: true, value: [] });
    expect(await app.call('channelDecide', { id, allow: true })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect((await answer).is_error).toBe(true);
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
    // The connection serves on: the next change waits for the user as usual.
    const next = backend.call(create('/memories/b.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: true });
    expect(await next).toEqual({ content: 'File created successfully at: /memories/b.md', is_error: false });
  });

  it('is withdrawn when the client gives up waiting for the app’s answer: an Allow after the error it was given writes nothing', async () => {
    const app = await approvalApp();
    const backend = (await app.connect({ client: 'Cursor', requestTimeoutMs: 300 }))!;
    const answer = backend.call(create('/memories/a.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const { id } = pendingOf(app)[0]!;
    expect((await answer).content).toMatch(/did not answer in time/);
    await vi.waitFor(() => expect(pendingOf(app)).toEqual([]));
    expect(await app.call('channelDecide', { id, allow: true })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
  });

  it('is withdrawn when the app’s connection closes while it waits', async () => {
    const app = await approvalApp();
    const backend = (await app.connect({ client: 'Cursor' }))!;
    void backend.call(create('/memories/a.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const { id } = pendingOf(app)[0]!;
    await backend.close();
    await vi.waitFor(() => expect(pendingOf(app)).toEqual([]));
    expect(await app.call('channelDecide', { id, allow: true })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
  });

  it('drops a queued call the app cancels before its turn, answering it without running it', async () => {
    const app = await approvalApp();
    const backend = (await app.connect())!;
    const first = backend.call(create('/memories/first.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const cancel = new AbortController();
    const queued = backend.call(create('/memories/queued.md'), { signal: cancel.signal });
    cancel.abort();
    expect((await queued).is_error).toBe(true);
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: true });
    expect((await first).is_error).toBe(false);
    // The cancelled call never asked the user and wrote nothing.
    expect(pendingOf(app)).toEqual([]);
    expect(app.vault().memory.stat('/memories/queued.md')).toBeUndefined();
  });

  it('answers “not approved in time” by the deadline its app gives, well before the app’s own two minutes', async () => {
    const app = await approvalApp();
    const backend = (await app.connect())!;
    const started = Date.now();
    const answer = backend.call(create('/memories/a.md'), { deadline: started + 400 });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    // The card says when it stops waiting: the client's deadline (counted by the app from the frame's arrival, so
    // later by the frame's trip, which the 10 s mnemo mcp keeps in hand covers), not two minutes on.
    expect(pendingOf(app)[0]!.expires).toBeLessThanOrEqual(started + 400 + 1000);
    expect(await answer).toEqual({ content: `Error: ${NOT_IN_TIME_MESSAGE}`, is_error: true });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(pendingOf(app)).toEqual([]);
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
  });
});
