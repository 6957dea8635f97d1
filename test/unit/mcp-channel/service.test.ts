/**
 * A call over the channel is a call to the app's own memory: the memory
 * tool's exact answers, the project the client named, the client recorded as
 * the writer, the window told live, the review inbox listing it; approval
 * mode holds it for the user; read-only refuses writes; the log keeps who,
 * what and when, never what.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { readCallLog } from '../../../electron/core/mcp/calls-log';
import { DECLINED_MESSAGE, LOCKED_WHILE_WAITING_MESSAGE, NOT_IN_TIME_MESSAGE } from '../../../electron/core/mcp/channel-service';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { Projects } from '../../../electron/core/projects/store';
import { MemoryPathError } from '../../../electron/core/memory/paths';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { connectApp } from '../../../electron/core/mcp/channel-client';
import { rolledBackResult } from '../../../electron/core/memory/run';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { channelApp, KDF, later, PASS, tempDir, type ChannelApp } from './rig';
import { pinFormat1 } from '../vault/helpers';

const create = (p: string, text = 'Tea: oolong') => ({ command: 'create', path: p, file_text: text });

/** The changes the window was last told are waiting. */
const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};

describe('a call from another app', () => {
  it('creates a memory with the tool’s own answer, written by the client: the window hears of it and the review inbox lists it', async () => {
    const app = await channelApp();
    const backend = (await app.connect({ client: 'Claude Code' }))!;
    expect(await backend.call(create('/memories/tea.md'))).toEqual({ content: 'File created successfully at: /memories/tea.md', is_error: false });
    expect(await app.vault().memory.readFile('/memories/tea.md')).toBe('Tea: oolong');
    expect(app.vault().writer('/memories/tea.md')).toEqual({ kind: 'mcp', client: 'Claude Code' });
    expect(app.events).toContainEqual({ event: 'memoryChanged', payload: expect.objectContaining({ op: 'write', path: '/memories/tea.md', source: 'cli' }) });
    expect(await app.call('reviewList')).toEqual({ ok: true, value: [expect.objectContaining({ path: '/memories/tea.md', kind: 'new', by: { kind: 'mcp', client: 'Claude Code' } })] });
    // The memory tool's errors, word for word.
    expect(await backend.call(create('/memories/tea.md'))).toEqual({ content: 'Error: File /memories/tea.md already exists', is_error: true });
    expect(await backend.call({ command: 'view', path: '/memories/../etc' })).toMatchObject({ is_error: true });
  });

  it('works in the project it named, and nowhere else', async () => {
    const app = await channelApp();
    const garden = await new Projects(app.vault()).create('Garden');
    const backend = (await app.connect({ project: 'garden' }))!;
    expect((await backend.call(create('/memories/roses.md', 'Prune in March'))).is_error).toBe(false);
    const gardenMemory = await new Projects(app.vault()).memoryVault(garden.id);
    expect(await gardenMemory.memory.readFile('/memories/roses.md')).toBe('Prune in March');
    expect(app.vault().memory.stat('/memories/roses.md')).toBeUndefined();
    expect(await app.call('reviewList', { project: garden.id })).toMatchObject({ ok: true, value: [{ path: '/memories/roses.md' }] });
    // By id, as the Windows configurations name it.
    const byId = (await app.connect({ projectId: garden.id }))!;
    expect((await byId.call(create('/memories/tulips.md', 'Plant in October'))).is_error).toBe(false);
    expect(await gardenMemory.memory.readFile('/memories/tulips.md')).toBe('Plant in October');
    const refusals: string[] = [];
    expect(await app.connect({ projectId: 'ffffffffffffffff', onRefused: (r) => refusals.push(r.message) })).toBeUndefined();
    expect(refusals).toEqual([expect.stringMatching(/^Mnemo has no project with the id ffffffffffffffff/)]);
  });

  it('from mnemo memory, records the command line as the writer', async () => {
    const app = await channelApp();
    const backend = (await app.connect({ via: 'cli', client: 'whatever' }))!;
    expect((await backend.call(create('/memories/a.md'))).is_error).toBe(false);
    expect(app.vault().writer('/memories/a.md')).toEqual({ kind: 'cli' });
  });

  it('keeps a hostile client name printable and short', async () => {
    const app = await channelApp();
    const backend = (await app.connect({ client: `Evil\u202e\u0000App${'x'.repeat(2000)}` }))!;
    await backend.call(create('/memories/a.md'));
    const by = app.vault().writer('/memories/a.md');
    expect(by).toEqual({ kind: 'mcp', client: `EvilApp${'x'.repeat(57)}` });
  });

  it('lists and reads the project’s memories, with the vault’s errors for what is missing or not a memory path', async () => {
    const app = await channelApp();
    await app.vault().memory.writeFile('/memories/notes/a.md', 'alpha', { mode: 'create', source: 'user' });
    const backend = (await app.connect())!;
    expect(await backend.list()).toEqual([{ path: '/memories/notes/a.md', size: 5, modified: expect.any(Number) }]);
    expect(await backend.read('/memories/notes/a.md')).toBe('alpha');
    await expect(backend.read('/memories/none.md')).rejects.toMatchObject({ name: 'VaultError', code: 'NOT_FOUND' });
    await expect(backend.read('/etc/passwd')).rejects.toBeInstanceOf(MemoryPathError);
  });

  it('tells the client of changes to its project’s memory, by anyone, and of nothing else', async () => {
    const app = await channelApp();
    const garden = await new Projects(app.vault()).create('Garden');
    const backend = (await app.connect())!;
    const seen: string[][] = [];
    backend.onChange((paths) => seen.push(paths));
    await (await new Projects(app.vault()).memoryVault(garden.id)).memory.writeFile('/memories/other.md', 'x', { mode: 'create', source: 'user' });
    await app.call('memoryWrite', { path: '/memories/mine.md', text: 'y', mode: 'create' });
    await vi.waitFor(() => expect(seen).toEqual([['/memories/mine.md']]));
  });
});

describe('a vault reported as rolled back', () => {
  it('gives other apps no memory, as it gives Claude none, until the user accepts it', async () => {
    // Format 1: about the rollback alarm, which format 2 replaces by a notice (its own files older: it goes on as a new computer)
    pinFormat1();
    const dir = await tempDir();
    const first = await channelApp({ dir });
    await first.vault().memory.writeFile('/memories/old.md', 'old', { mode: 'create', source: 'user' });
    await first.session.close();
    const copy = path.join(dir, 'copy');
    await fs.cp(path.join(dir, 'vault'), copy, { recursive: true });
    const second = await reopened(dir);
    await second.session.unlocked().memory.writeFile('/memories/new.md', 'new', { mode: 'create', source: 'user' });
    await second.session.close();
    await fs.rm(path.join(dir, 'vault'), { recursive: true });
    await fs.cp(copy, path.join(dir, 'vault'), { recursive: true });
    const third = await reopened(dir);
    expect(third.session.unlocked().isRolledBack()).toBe(true);
    const backend = (await third.connect())!;
    expect(await backend.call({ command: 'view', path: '/memories' })).toEqual(rolledBackResult());
    await expect(backend.list()).rejects.toMatchObject({ code: 'ROLLED_BACK' });
    await expect(backend.read('/memories/old.md')).rejects.toMatchObject({ code: 'ROLLED_BACK' });
  });
});

/** The app reopened on `dir` and unlocked, serving the channel. */
async function reopened(dir: string) {
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined, channel: {} });
  later(() => made.session.close());
  expect((await dispatch(made.handlers, 'vaultUnlock', [{ passphrase: PASS }])).ok).toBe(true);
  await made.channel.start();
  const vaultId = made.session.unlocked().vaultId;
  return { ...made, connect: () => connectApp({ stateDir: path.join(dir, 'state'), vaultId, via: 'mcp', client: 'Claude Code', readOnly: false }) };
}

describe('what the user allows', () => {
  it('answers every write with the memory tool’s error on a read-only connection, or when access is read-only; view still works', async () => {
    const app = await channelApp();
    const readOnly = (await app.connect({ readOnly: true }))!;
    const refused = await readOnly.call(create('/memories/a.md'));
    expect(refused).toEqual({ content: expect.stringMatching(/^Error: Mnemo lets Claude Code view this memory but not change it/), is_error: true });
    expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
    expect((await readOnly.call({ command: 'view', path: '/memories' })).is_error).toBe(false);

    const full = (await app.connect())!;
    await saveSettings(app.vault(), { mcpAccess: 'read-only' });
    // A setting changed while connected applies to the next call.
    for (const input of [create('/memories/b.md'), { command: 'delete', path: '/memories' }, { command: 'rename', old_path: '/memories/x', new_path: '/memories/y' }]) {
      expect((await full.call(input)).content).toMatch(/not change it/);
    }
    await saveSettings(app.vault(), { mcpAccess: 'off' });
    expect(await full.call({ command: 'view', path: '/memories' })).toEqual({ content: expect.stringMatching(/^Error: MCP access is off/), is_error: true });
    await expect(full.list()).rejects.toMatchObject({ message: expect.stringMatching(/MCP access is off/) });
  });

  it('in approval mode holds a write for the user, shows what it changes and who asks; Allow writes it', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    await app.vault().memory.writeFile('/memories/tea.md', 'Tea: green', { mode: 'create', source: 'user' });
    const backend = (await app.connect({ client: 'Cursor' }))!;
    const answer = backend.call({ command: 'str_replace', path: '/memories/tea.md', old_str: 'green', new_str: 'oolong' });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    const ask = pendingOf(app)[0]!;
    expect(ask).toMatchObject({ client: 'Cursor', via: 'mcp', project: 'default', projectName: 'Default', command: 'str_replace', path: '/memories/tea.md', change: { diff: { before: 'Tea: green', after: 'Tea: oolong' } } });
    expect(ask.id).toMatch(/^out_[0-9a-f]{24}$/);
    // Nothing is written while it waits.
    expect(await app.vault().memory.readFile('/memories/tea.md')).toBe('Tea: green');
    expect(await app.call('channelPending')).toEqual({ ok: true, value: [ask] });
    expect(await app.call('channelDecide', { id: ask.id, allow: true })).toEqual({ ok: true, value: null });
    expect((await answer).is_error).toBe(false);
    expect(await app.vault().memory.readFile('/memories/tea.md')).toBe('Tea: oolong');
    expect(pendingOf(app)).toEqual([]);
    // Decided once: a second decision finds nothing.
    expect(await app.call('channelDecide', { id: ask.id, allow: false })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('Deny answers the chat’s denial and changes nothing; no answer in time answers the timeout error', async () => {
    const app = await channelApp({ channel: { approvalTimeoutMs: 300 } });
    await saveSettings(app.vault(), { approvalMode: true });
    const backend = (await app.connect())!;
    const denied = backend.call(create('/memories/a.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: false });
    expect(await denied).toEqual({ content: `Error: ${DECLINED_MESSAGE}`, is_error: true });
    expect(await backend.call(create('/memories/b.md'))).toEqual({ content: `Error: ${NOT_IN_TIME_MESSAGE}`, is_error: true });
    expect(NOT_IN_TIME_MESSAGE).toBe('The change was not approved in time; nothing was changed.');
    expect(app.vault().memory.list('/memories', 1)).toEqual([]);
    expect(pendingOf(app)).toEqual([]);
    // A path the tool refuses is answered at once, without asking the user.
    expect(await backend.call(create('/memories/../x.md'))).toMatchObject({ is_error: true });
    expect(app.events.filter((e) => e.event === 'channelApprovals')).toHaveLength(4);
  });

  it('answers every waiting change, when the vault locks, that the lock came first (not that the user declined), and makes none', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const backend = (await app.connect())!;
    const answer = backend.call(create('/memories/a.md'));
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    await app.call('vaultLock');
    expect(await answer).toEqual({ content: `Error: ${LOCKED_WHILE_WAITING_MESSAGE}`, is_error: true });
    expect(LOCKED_WHILE_WAITING_MESSAGE).toBe('Mnemo was locked before this change was approved; nothing was changed.');
    expect(pendingOf(app)).toEqual([]);
    expect((await app.call('vaultUnlock', { passphrase: PASS })).ok).toBe(true);
    expect(app.session.unlocked().memory.stat('/memories/a.md')).toBeUndefined();
  });
});

describe('the call log', () => {
  it('keeps client, command, path, time and outcome of each call, never contents, encrypted in the vault', async () => {
    const app = await channelApp();
    const backend = (await app.connect({ client: 'Claude Desktop' }))!;
    const secret = 'the-text-of-a-memory-4242';
    await backend.call(create('/memories/a.md', secret));
    await backend.call({ command: 'view', path: '/memories/a.md' });
    await backend.call(create('/memories/a.md', secret));
    await backend.read('/memories/a.md');
    const log = await app.call('channelLog');
    expect(log).toEqual({
      ok: true,
      value: [
        { at: expect.any(Number), client: 'Claude Desktop', via: 'mcp', project: 'Default', command: 'read', path: '/memories/a.md', ok: true },
        { at: expect.any(Number), client: 'Claude Desktop', via: 'mcp', project: 'Default', command: 'create', path: '/memories/a.md', ok: false },
        { at: expect.any(Number), client: 'Claude Desktop', via: 'mcp', project: 'Default', command: 'view', path: '/memories/a.md', ok: true },
        { at: expect.any(Number), client: 'Claude Desktop', via: 'mcp', project: 'Default', command: 'create', path: '/memories/a.md', ok: true },
      ],
    });
    expect(JSON.stringify(log)).not.toContain(secret);
    // Written before the keys go, and read back after the next unlock.
    await app.call('vaultLock');
    for (const f of await fs.readdir(path.join(app.dir, 'vault'), { recursive: true })) {
      const p = path.join(app.dir, 'vault', f);
      // The lock record goes once the lock is let go, which may be just after the lock call answers — even between
      // listing it and reading it (this read once failed with ENOENT): a file gone by then holds nothing to check.
      const st = await fs.stat(p).catch(() => undefined);
      if (!st?.isFile()) continue;
      const bytes = await fs.readFile(p).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
      if (bytes) expect(bytes.includes('Claude Desktop'), f).toBe(false);
    }
    expect((await app.call('vaultUnlock', { passphrase: PASS })).ok).toBe(true);
    expect((await readCallLog(app.session.unlocked().internal)).map((e) => e.command)).toEqual(['create', 'view', 'create', 'read']);
    expect(await app.call('channelLog')).toEqual(log);
  });

  it('keeps the last 100 calls only', async () => {
    const app = await channelApp();
    const backend = (await app.connect())!;
    for (let i = 0; i < 105; i++) await backend.call({ command: 'view', path: `/memories/n${i}` });
    const log = await app.call('channelLog');
    const entries = (log as { value: Array<{ path: string }> }).value;
    expect(entries).toHaveLength(100);
    expect(entries[0]!.path).toBe('/memories/n104');
    expect(entries.at(-1)!.path).toBe('/memories/n5');
  });
});

describe('the configurations for other apps', () => {
  it('are built by main for each project, for Claude Desktop (and its Windows form), Claude Code and Cursor, with no passphrase or host path', async () => {
    const app = await channelApp();
    await new Projects(app.vault()).create('Garden & Roses');
    const r = await app.call('channelConfigs', { readOnly: false });
    expect(r.ok).toBe(true);
    const [first, garden] = (r as { value: Array<{ project: string; server: string; configs: Record<string, string> }> }).value;
    expect(first!.server).toBe('mnemo');
    expect(JSON.parse(first!.configs['claude-desktop']!)).toEqual({ mcpServers: { mnemo: { command: 'mnemo', args: ['mcp'] } } });
    expect(JSON.parse(first!.configs['claude-desktop-windows']!)).toEqual({ mcpServers: { mnemo: { command: 'cmd', args: ['/c', 'mnemo', 'mcp'] } } });
    expect(JSON.parse(first!.configs.cursor!)).toEqual({ mcpServers: { mnemo: { command: 'mnemo', args: ['mcp'] } } });
    expect(first!.configs['claude-code']).toBe('claude mcp add --scope user mnemo -- mnemo mcp');
    expect(garden!.server).toBe('mnemo-garden-roses');
    expect(JSON.parse(garden!.configs['claude-desktop']!).mcpServers['mnemo-garden-roses'].args).toEqual(['mcp', '--project', 'Garden & Roses']);
    expect(garden!.configs['claude-code']).toBe("claude mcp add --scope user mnemo-garden-roses -- mnemo mcp --project 'Garden & Roses'");
    const readOnly = await app.call('channelConfigs', { readOnly: true });
    expect(JSON.stringify(readOnly)).toContain('--read-only');
    const all = JSON.stringify([r, readOnly]);
    expect(all).not.toContain(PASS);
    expect(all).not.toContain(app.dir);
  });

  it('are copied by main: the text is the one shown', async () => {
    const app = await channelApp();
    const shown = ((await app.call('channelConfigs', { readOnly: true })) as { value: Array<{ configs: Record<string, string> }> }).value[0]!.configs['claude-code'];
    expect(await app.call('channelCopyConfig', { project: 'default', target: 'claude-code', readOnly: true })).toEqual({ ok: true, value: { copied: true } });
    expect(app.clipboard.text).toBe(shown);
    expect(await app.call('channelCopyConfig', { project: 'ffffffffffffffff', target: 'cursor', readOnly: false })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
