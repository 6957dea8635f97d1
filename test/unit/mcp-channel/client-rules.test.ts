/**
 * What each app may do, beside the access level: the app remembers every app
 * by the name it gave at its first connection (as the "new apps start
 * read-only" setting says), and the user can set one to view only. The app
 * enforces it on the channel; narrowing applies at once, widening needs the
 * passphrase (or main's own OK) like every weakening.
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { knownClients, MAX_KNOWN_CLIENTS } from '../../../electron/core/mcp/client-rules';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, PASS } from './rig';

const create = (p: string) => ({ command: 'create', path: p, file_text: 'Tea: oolong' });
const viewOnly = (client: string) => ({ content: `Error: Mnemo lets ${client} view this memory but not change it (${client} is set to view only in Mnemo’s Settings). Nothing was written; tell the user if something should be remembered.`, is_error: true });

describe('apps known by name', () => {
  it('are remembered at their first connection, read-write unless new apps start read-only', async () => {
    const app = await channelApp();
    await app.connect({ client: 'Cursor' });
    await app.connect({ via: 'cli', client: 'ignored' });
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: true });
    const zed = (await app.connect({ client: 'Zed' }))!;
    expect(await app.call('channelClients')).toEqual({
      ok: true,
      value: [
        { name: 'Cursor', access: 'read-write', firstSeen: expect.any(Number) },
        { name: 'mnemo memory', access: 'read-write', firstSeen: expect.any(Number) },
        { name: 'Zed', access: 'read-only', firstSeen: expect.any(Number) },
      ],
    });
    // A new app may only view; one known before the setting changed keeps what it had.
    expect(await zed.call(create('/memories/z.md'))).toEqual(viewOnly('Zed'));
    expect((await (await app.connect({ client: 'Cursor' }))!.call(create('/memories/c.md'))).is_error).toBe(false);
    expect(app.vault().memory.stat('/memories/z.md')).toBeUndefined();
  });

  it('set to view only, are refused every write at once (an open connection too) with nothing written, and others are not', async () => {
    const app = await channelApp();
    const cursor = (await app.connect({ client: 'Cursor' }))!;
    const code = (await app.connect({ client: 'Claude Code' }))!;
    expect((await cursor.call(create('/memories/before.md'))).is_error).toBe(false);
    // Narrowing needs no passphrase.
    expect(await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' })).toMatchObject({ ok: true });
    for (const input of [create('/memories/a.md'), { command: 'delete', path: '/memories/before.md' }, { command: 'rename', old_path: '/memories/before.md', new_path: '/memories/x.md' }]) {
      expect(await cursor.call(input)).toEqual(viewOnly('Cursor'));
    }
    expect(await cursor.call({ command: 'view', path: '/memories/before.md' })).toMatchObject({ is_error: false });
    expect(app.vault().memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/before.md']);
    expect((await code.call(create('/memories/code.md'))).is_error).toBe(false);
  });

  it('may change memory again only with the passphrase (or main’s own OK)', async () => {
    const app = await channelApp();
    const cursor = (await app.connect({ client: 'Cursor' }))!;
    await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' });
    expect(await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-write' })).toMatchObject({ ok: false, error: { code: 'NEEDS_CONSENT', message: expect.stringContaining('Let the app named “Cursor” change your memories') } });
    expect(await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-write', passphrase: 'not it' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(await cursor.call(create('/memories/a.md'))).toEqual(viewOnly('Cursor'));
    expect(await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-write', passphrase: PASS })).toMatchObject({ ok: true, value: [{ name: 'Cursor', access: 'read-write' }] });
    expect((await cursor.call(create('/memories/a.md'))).is_error).toBe(false);
    expect(await app.call('channelSetClientAccess', { client: 'Nobody', access: 'read-only' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('starting read-only is free to turn on; turning it off needs the passphrase', async () => {
    const app = await channelApp();
    expect(await app.call('settingsSet', { mcpNewClientsReadOnly: true })).toMatchObject({ ok: true, value: { mcpNewClientsReadOnly: true } });
    expect(await app.call('settingsSet', { mcpNewClientsReadOnly: false })).toMatchObject({ ok: false, error: { code: 'NEEDS_CONSENT', message: expect.stringContaining('apps that connect for the first time') } });
    expect(await app.call('settingsSet', { mcpNewClientsReadOnly: false, passphrase: PASS })).toMatchObject({ ok: true, value: { mcpNewClientsReadOnly: false } });
  });

  it('set to view only while one of its changes waits for approval: an Allow on the older card writes nothing', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const cursor = (await app.connect({ client: 'Cursor' }))!;
    const answer = cursor.call(create('/memories/a.md'));
    const pending = () => (app.events.filter((e) => e.event === 'channelApprovals').at(-1)?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
    await vi.waitFor(() => expect(pending()).toHaveLength(1));
    await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' });
    await app.call('channelDecide', { id: pending()[0]!.id, allow: true });
    expect(await answer).toEqual(viewOnly('Cursor'));
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
  });

  it('are remembered up to a bound; past it a new name is treated as new each time, and not added', async () => {
    const app = await channelApp();
    for (let i = 0; i < MAX_KNOWN_CLIENTS + 5; i++) await (await app.connect({ client: `App ${i}` }))!.close();
    const known = await knownClients(app.vault().internal);
    expect(known).toHaveLength(MAX_KNOWN_CLIENTS);
    expect(known.at(-1)!.name).toBe(`App ${MAX_KNOWN_CLIENTS - 1}`);
  });
});

describe('forgetting an app', () => {
  it('frees its place in a full list, so the next new app is remembered', async () => {
    const app = await channelApp();
    for (let i = 0; i < MAX_KNOWN_CLIENTS; i++) await (await app.connect({ client: `App ${i}` }))!.close();
    const forgotten = await app.call('channelForgetClient', { client: 'App 3' });
    expect(forgotten).toMatchObject({ ok: true });
    expect((forgotten as { value: Array<{ name: string }> }).value.map((c) => c.name)).not.toContain('App 3');
    await (await app.connect({ client: 'Zed' }))!.close();
    expect((await knownClients(app.vault().internal)).at(-1)).toMatchObject({ name: 'Zed' });
    expect(await app.call('channelForgetClient', { client: 'Nobody' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('never weakens a rule silently: a view-only app forgotten while new apps may change memory needs the passphrase', async () => {
    const app = await channelApp();
    await (await app.connect({ client: 'Cursor' }))!.close();
    await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' });
    expect(await app.call('channelForgetClient', { client: 'Cursor' })).toMatchObject({ ok: false, error: { code: 'NEEDS_CONSENT', message: expect.stringContaining('Let the app named “Cursor” change your memories') } });
    expect(await app.call('channelForgetClient', { client: 'Cursor', passphrase: 'not it' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(await knownClients(app.vault().internal)).toMatchObject([{ name: 'Cursor', access: 'read-only' }]);
    expect(await app.call('channelForgetClient', { client: 'Cursor', passphrase: PASS })).toEqual({ ok: true, value: [] });
    // Back as new, it gets what new apps get.
    const cursor = (await app.connect({ client: 'Cursor' }))!;
    expect((await cursor.call(create('/memories/a.md'))).is_error).toBe(false);
  });

  it('forgetting a view-only app while new apps start read-only needs nothing: it comes back view only', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: true });
    await (await app.connect({ client: 'Cursor' }))!.close();
    expect(await app.call('channelForgetClient', { client: 'Cursor' })).toEqual({ ok: true, value: [] });
    const cursor = (await app.connect({ client: 'Cursor' }))!;
    expect(await cursor.call(create('/memories/a.md'))).toEqual(viewOnly('Cursor'));
    expect(await knownClients(app.vault().internal)).toMatchObject([{ name: 'Cursor', access: 'read-only' }]);
  });
});
