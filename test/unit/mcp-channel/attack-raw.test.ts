/**
 * Second attack round on the channel's new surfaces, spoken directly on the socket (the token in hand, as any
 * program running as the user has it): per-app rules against a client that changes its name, channel v2's `within`
 * and `cancel` with hostile values, ids that repeat or belong to another connection, and many held changes at once
 * when the vault locks.
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { LOCKED_WHILE_WAITING_MESSAGE } from '../../../electron/core/mcp/channel-service';
import { CHANNEL_VERSION } from '../../../electron/core/mcp/protocol';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, raw, type ChannelApp } from './rig';

const create = (p: string, text = 'Tea: oolong') => ({ command: 'create', path: p, file_text: text });
const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};
const resultOf = (frames: Array<{ type: string; id?: number }>, id: number) => frames.find((f) => f.type === 'result' && f.id === id) as { result: { content: string; is_error: boolean } } | undefined;

async function welcomed(app: ChannelApp, client: string, extra: Record<string, unknown> = {}) {
  const r = await raw(app.files.socket);
  r.hello(await app.token(), { client, ...extra });
  await vi.waitFor(() => expect(r.frames[0]?.type).toBe('welcome'), { timeout: 10_000 });
  return r;
}

describe('a client set to view only, on the raw channel', () => {
  it('cannot write by any command, whatever its hello says, nor under a look-alike of its name', async () => {
    const app = await channelApp();
    await app.vault().memory.writeFile('/memories/keep.md', 'keep me', { mode: 'create', source: 'user' });
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: true });
    // Known (and so read-write) before new apps started read-only, then set to view only by the user.
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: false });
    await (await app.connect({ client: 'Cursor' }))!.close();
    expect((await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' })).ok).toBe(true);
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: true });
    const writes = [
      create('/memories/new.md'),
      { command: 'str_replace', path: '/memories/keep.md', old_str: 'keep', new_str: 'lose' },
      { command: 'insert', path: '/memories/keep.md', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/keep.md' },
      { command: 'rename', old_path: '/memories/keep.md', new_path: '/memories/moved.md' },
    ];
    // The same name in other dress: trimmed, NFD, with a zero-width character, another case (a new app: read-only too).
    for (const client of ['Cursor', ' Cursor ', 'Cursor\u200b', 'Cursor\u0000', 'cursor', 'CURSOR']) {
      const r = await welcomed(app, client, { readOnly: false });
      writes.forEach((input, i) => r.send({ type: 'call', id: i + 1, input }));
      await vi.waitFor(() => expect(r.frames.filter((f) => f.type === 'result')).toHaveLength(writes.length));
      for (let i = 1; i <= writes.length; i++) expect(resultOf(r.frames, i)!.result.is_error, `${client} #${i}`).toBe(true);
      r.socket.destroy();
    }
    expect(app.vault().memory.stat('/memories/new.md')).toBeUndefined();
    expect(app.vault().memory.stat('/memories/moved.md')).toBeUndefined();
    expect(await app.vault().memory.readFile('/memories/keep.md')).toBe('keep me');
    // No client changed its own rule.
    const known = (await app.call('channelClients')) as { value: Array<{ name: string; access: string }> };
    expect(known.value.every((c) => c.access === 'read-only')).toBe(true);
  });
});

describe('channel v2 frames with hostile values', () => {
  it('end the connection for a within that is negative, fractional, not a number, or past a day, and write nothing', async () => {
    const app = await channelApp();
    for (const within of [-1, 0.5, '50', null, 1e308, 24 * 60 * 60_000 + 1, true]) {
      const r = await welcomed(app, 'Hostile');
      r.send({ type: 'call', id: 1, input: create('/memories/w.md'), within });
      await r.closed;
      expect(r.frames.some((f) => f.type === 'result')).toBe(false);
    }
    for (const id of [-1, 1.5, '1', null, 2 ** 64 + 0.5]) {
      const r = await welcomed(app, 'Hostile');
      r.send({ type: 'cancel', id });
      await r.closed;
    }
    expect(app.vault().memory.stat('/memories/w.md')).toBeUndefined();
  });

  it('a day-long within still waits for the user no longer than the app’s own two minutes', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const r = await welcomed(app, 'Patient');
    const sent = Date.now();
    r.send({ type: 'call', id: 1, input: create('/memories/w.md'), within: 24 * 60 * 60_000 });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    expect(pendingOf(app)[0]!.expires).toBeLessThanOrEqual(sent + 2 * 60_000 + 1000);
  });
});

describe('call ids', () => {
  it('are each connection’s own: a cancel for another connection’s id withdraws nothing of it', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const a = await welcomed(app, 'Honest');
    const b = await welcomed(app, 'Meddler');
    a.send({ type: 'call', id: 7, input: create('/memories/a.md') });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    for (let id = 0; id < 50; id++) b.send({ type: 'cancel', id });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pendingOf(app)).toHaveLength(1);
    expect((await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: true })).ok).toBe(true);
    await vi.waitFor(() => expect(resultOf(a.frames, 7)?.result).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false }));
  });

  it('repeated on one connection: a cancel withdraws the change being asked, and an Allow on it never writes; the next one is asked for itself', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const r = await welcomed(app, 'Repeater');
    r.send({ type: 'call', id: 1, input: create('/memories/first.md') });
    r.send({ type: 'call', id: 1, input: create('/memories/second.md') });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const firstCard = pendingOf(app)[0]!;
    expect(firstCard.path).toBe('/memories/first.md');
    r.send({ type: 'cancel', id: 1 });
    // The second call with that id is now the one asked for; the first card is gone for good.
    await vi.waitFor(() => expect(pendingOf(app).map((p) => p.path)).toEqual(['/memories/second.md']));
    expect(await app.call('channelDecide', { id: firstCard.id, allow: true })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: false });
    await vi.waitFor(() => expect(r.frames.filter((f) => f.type === 'result')).toHaveLength(2));
    expect(app.vault().memory.stat('/memories/first.md')).toBeUndefined();
    expect(app.vault().memory.stat('/memories/second.md')).toBeUndefined();
  });
});

describe('many held changes from many apps when the vault locks', () => {
  it('are all answered that the lock came first, none is made, and the lock does not wait out the calls', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const clients = await Promise.all(Array.from({ length: 12 }, (_, i) => welcomed(app, `App ${i}`)));
    clients.forEach((r, i) => {
      r.send({ type: 'call', id: 1, input: create(`/memories/m${i}.md`) });
      for (let q = 2; q <= 5; q++) r.send({ type: 'call', id: q, input: create(`/memories/m${i}-${q}.md`) });
    });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(12), { timeout: 10_000 });
    const started = Date.now();
    expect((await app.call('vaultLock')).ok).toBe(true);
    // Not the 10 s main gives calls in flight: every held change is ended at once.
    expect(Date.now() - started).toBeLessThan(8000);
    for (const r of clients) {
      await vi.waitFor(() => expect(r.frames.filter((f) => f.type === 'result')).toHaveLength(5), { timeout: 10_000 });
      expect(resultOf(r.frames, 1)!.result).toEqual({ content: `Error: ${LOCKED_WHILE_WAITING_MESSAGE}`, is_error: true });
      for (let q = 2; q <= 5; q++) expect(resultOf(r.frames, q)!.result.is_error).toBe(true);
    }
    expect(pendingOf(app)).toEqual([]);
  });
});

describe('frames sent right behind the hello, before the app has decided it', () => {
  const pipelined = async (app: ChannelApp) => {
    const r = await raw(app.files.socket);
    const hello = { type: 'hello', version: CHANNEL_VERSION, token: await app.token(), via: 'mcp', client: 'Pipelined', readOnly: false };
    r.socket.write([hello, { type: 'call', id: 1, input: { command: 'view', path: '/memories' } }, { type: 'cancel', id: 1 }].map((m) => `${JSON.stringify(m)}\n`).join(''));
    return r;
  };

  it('are answered after the welcome, never before it (the welcome is the first frame)', async () => {
    const app = await channelApp();
    const r = await pipelined(app);
    await vi.waitFor(() => expect(r.frames).toHaveLength(2));
    expect(r.frames.map((f) => f.type)).toEqual(['welcome', 'result']);
  });

  it('are not answered at all when the hello is refused (access off): the refusal is all the peer hears', async () => {
    const app = await channelApp({ access: 'off' });
    const r = await pipelined(app);
    await r.closed;
    expect(r.frames.map((f) => f.type)).toEqual(['refused']);
  });
});
