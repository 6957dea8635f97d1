/**
 * Projects, temporary chats, models, the context meter and export through the
 * IPC handler table, as the window calls them.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { Handlers } from '../../../electron/main/handlers/types';
import type { AppSession } from '../../../electron/main/handlers/session';
import { memoryCall, reply, startFakeAnthropic, text, text as textBlock, type FakeAnthropic } from '../../fake-anthropic/server';
import { estimateTokens } from '../../fake-anthropic/models';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Rig {
  handlers: Handlers;
  session: AppSession;
  dir: string;
  events: Array<{ event: string; payload: unknown }>;
  fake: FakeAnthropic;
  saved: string[];
  call(name: keyof Handlers, ...args: unknown[]): Promise<unknown>;
}

async function rig(): Promise<Rig> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-projects-'));
  const fake = await startFakeAnthropic();
  const events: Rig['events'] = [];
  const saved: string[] = [];
  const { handlers, session } = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL },
    kdf: KDF,
    pickDirectory: async () => undefined,
    pickSaveFile: async (name) => {
      const target = path.join(dir, name);
      saved.push(target);
      return target;
    },
    emit: (event, payload) => events.push({ event, payload }),
  });
  cleanups.push(async () => {
    await session.close();
    await fake.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const call = async (name: keyof Handlers, ...args: unknown[]) => {
    const r = await dispatch(handlers, name, args);
    if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
    return r.value;
  };
  await call('vaultCreate', { passphrase: PASS });
  return { handlers, session, dir, events, fake, saved, call };
}

/** Waits for the `done` event of a turn. */
function turnDone(r: Rig, turnId: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (r.events.some((e) => e.event === 'chatEvent' && (e.payload as { turnId: string; event: { type: string } }).turnId === turnId && (e.payload as { event: { type: string } }).event.type === 'done') ? resolve() : setImmediate(check));
    check();
  });
}

describe('projects over IPC', () => {
  it('lists, creates, renames, deletes and restores, with name errors as data', async () => {
    const r = await rig();
    expect(await r.call('projectsList')).toEqual({ projects: [{ id: 'default', name: 'Default', created: 0 }], deleted: [] });
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    expect(await dispatch(r.handlers, 'projectsCreate', [{ name: 'work' }])).toMatchObject({ ok: false, error: { code: 'EXISTS' } });
    expect(await dispatch(r.handlers, 'projectsCreate', [{ name: 'a\tb' }])).toMatchObject({ ok: false, error: { code: 'INVALID', message: expect.stringMatching(/control characters/) } });
    await r.call('projectsRename', { id: work.id, name: 'Office' });
    await r.call('projectsDelete', { id: work.id });
    expect(await r.call('projectsList')).toMatchObject({ projects: [{ name: 'Default' }], deleted: [{ id: work.id, name: 'Office' }] });
    expect(await r.call('projectsRestore', { id: work.id })).toMatchObject({ id: work.id, name: 'Office' });
  });

  it('the editor works in one project at a time; a memory can be copied or moved across', async () => {
    const r = await rig();
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    await r.call('memoryWrite', { path: '/memories/w.md', text: 'work note', mode: 'create', project: work.id });
    await r.call('memoryWrite', { path: '/memories/d.md', text: 'default note', mode: 'create' });
    expect(((await r.call('memoryList')) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/d.md']);
    expect(((await r.call('memoryList', { project: work.id })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/w.md']);
    expect(await dispatch(r.handlers, 'memoryRead', [{ path: '/memories/w.md' }])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // The change event names the project and its own path, never the vault's internal folder.
    expect(r.events.filter((e) => e.event === 'memoryChanged').map((e) => e.payload)).toEqual([
      { op: 'write', path: '/memories/w.md', source: 'user', project: work.id, version: 1 },
      { op: 'write', path: '/memories/d.md', source: 'user', version: 1 },
    ]);
    await r.call('memoryTransfer', { fromProject: 'default', path: '/memories/d.md', toProject: work.id, mode: 'copy' });
    const seen = r.events.length;
    await r.call('memoryTransfer', { fromProject: work.id, path: '/memories/w.md', toProject: 'default', mode: 'move' });
    // A move across projects is a delete in one and a new file in the other, not a rename inside either.
    expect(r.events.slice(seen).map((e) => e.payload)).toEqual([
      { op: 'delete', path: '/memories/w.md', source: 'user', project: work.id },
      { op: 'write', path: '/memories/w.md', source: 'user' },
    ]);
    expect(((await r.call('memoryList')) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/d.md', '/memories/w.md']);
    expect(((await r.call('memoryList', { project: work.id })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/d.md']);
  });

  it('a conversation created in a project lists with it, and its turn writes to that project', async () => {
    const r = await rig();
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    const c = (await r.call('chatCreate', { project: work.id })) as { id: string; project?: string };
    expect(c.project).toBe(work.id);
    r.fake.script(reply(memoryCall({ command: 'create', path: '/memories/p.md', file_text: 'in work' })), reply(text('ok')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'remember' })) as { turnId: string };
    await turnDone(r, turnId);
    expect(((await r.call('memoryList', { project: work.id })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/p.md']);
    expect(await r.call('memoryList')).toEqual([]);
    expect(await dispatch(r.handlers, 'chatCreate', [{ project: 'ffffffffffffffff' }])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe("a deleted project's conversations over IPC", () => {
  /** A conversation in a new project "Work" with one finished turn that mentions tangerine. */
  async function conversationInWork(r: Rig) {
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    const c = (await r.call('chatCreate', { project: work.id })) as { id: string };
    r.fake.script(reply(text('noted')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'the launch code is tangerine' })) as { turnId: string };
    await turnDone(r, turnId);
    return { work, c };
  }

  it('are out of sight: neither listed nor found by search until the project is restored', async () => {
    const r = await rig();
    const { work, c } = await conversationInWork(r);
    expect(((await r.call('chatSearch', { query: 'tangerine' })) as Array<{ id: string }>).map((h) => h.id)).toEqual([c.id]);
    await r.call('projectsDelete', { id: work.id });
    expect(await r.call('chatSearch', { query: 'tangerine' })).toEqual([]);
    expect(await r.call('chatList')).toEqual([]);
    await r.call('projectsRestore', { id: work.id });
    expect(((await r.call('chatSearch', { query: 'tangerine' })) as Array<{ id: string }>).map((h) => h.id)).toEqual([c.id]);
    expect(((await r.call('chatList')) as Array<{ id: string }>).map((h) => h.id)).toEqual([c.id]);
  });

  it('cannot be opened, continued, renamed, exported or counted by id either, until the project is restored', async () => {
    const r = await rig();
    const { work, c } = await conversationInWork(r);
    await r.call('projectsDelete', { id: work.id });
    const requests = r.fake.requests.length;
    for (const [name, arg] of [
      ['chatGet', { id: c.id }],
      ['chatSend', { id: c.id, text: 'more' }],
      ['chatRename', { id: c.id, title: 'x' }],
      ['chatRewind', { id: c.id }],
      ['chatContext', { id: c.id }],
      ['chatExport', { id: c.id }],
    ] as const) {
      expect(await dispatch(r.handlers, name, [arg]), name).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/deleted project/) } });
    }
    expect(r.fake.requests.length).toBe(requests);
    await r.call('projectsRestore', { id: work.id });
    expect(((await r.call('chatGet', { id: c.id })) as { transcript: unknown[] }).transcript).toHaveLength(2);
  });

  it('cannot be deleted by id either: the conversation is still there when the project is restored', async () => {
    const r = await rig();
    const { work, c } = await conversationInWork(r);
    await r.call('projectsDelete', { id: work.id });
    expect(await dispatch(r.handlers, 'chatDelete', [{ id: c.id }])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/deleted project/) } });
    await r.call('projectsRestore', { id: work.id });
    expect(((await r.call('chatGet', { id: c.id })) as { transcript: unknown[] }).transcript).toHaveLength(2);
  });
});

describe('deleting a project while Claude answers in it', () => {
  it('is refused until the reply ends, so no memory is written into a deleted project', async () => {
    const r = await rig();
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    await r.call('settingsSet', { approvalMode: true });
    const c = (await r.call('chatCreate', { project: work.id })) as { id: string };
    r.fake.script(reply(memoryCall({ command: 'create', path: '/memories/late.md', file_text: 'late' })), reply(text('done')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'remember' })) as { turnId: string };
    // The write waits for approval: the turn is in flight.
    const approval = await new Promise<{ id: string }>((resolve) => {
      const check = () => {
        const e = r.events.find((x) => x.event === 'chatEvent' && (x.payload as { event: { type: string } }).event.type === 'approval');
        if (e) resolve((e.payload as { event: { id: string } }).event);
        else setImmediate(check);
      };
      check();
    });
    expect(await dispatch(r.handlers, 'projectsDelete', [{ id: work.id }])).toMatchObject({ ok: false, error: { code: 'INVALID', message: expect.stringMatching(/still answering/) } });
    expect(((await r.call('projectsList')) as { projects: Array<{ id: string }> }).projects.map((p) => p.id)).toContain(work.id);
    await r.call('chatApprove', { turnId, callId: approval.id, allow: true });
    await turnDone(r, turnId);
    expect(((await r.call('memoryList', { project: work.id })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/memories/late.md']);
    expect(await r.call('projectsDelete', { id: work.id })).toBeNull();
  });
});

describe('memory search over IPC', () => {
  it('returns at most 200 hits, matches by name included, and stops reading once it has them', async () => {
    const r = await rig();
    const items = Array.from({ length: 300 }, (_, i) => ({ path: `/memories/note-${String(i).padStart(3, '0')}.md`, text: i % 2 ? 'plain' : 'a note' }));
    await r.session.unlocked().importFiles(items, { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e9 });
    const vault = r.session.unlocked();
    const reads = vi.spyOn(vault.memory, 'readFile');
    const hits = (await r.call('memorySearch', { query: 'note' })) as Array<{ path: string }>;
    expect(hits).toHaveLength(200);
    expect(reads.mock.calls.length).toBeGreaterThan(0);
    expect(reads.mock.calls.length).toBeLessThan(300);
  });
});

describe('"Undo this change" over IPC', () => {
  it('undoes only a change that is still the latest: never deletes a folder made since, nor overwrites a later edit', async () => {
    const r = await rig();
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    const write = (path: string, text: string, mode: 'create' | 'update') => r.call('memoryWrite', { path, text, mode, project: work.id });
    // Claude created /memories/n (version 1); since then it became a folder of the user's notes.
    await write('/memories/n', 'created by Claude', 'create');
    await r.call('memoryDelete', { path: '/memories/n', project: work.id });
    await write('/memories/n/a.md', 'mine', 'create');
    expect(await dispatch(r.handlers, 'chatUndo', [{ path: '/memories/n', version: 1, project: work.id }])).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect((await r.call('memoryRead', { path: '/memories/n/a.md', project: work.id })) as { text: string }).toMatchObject({ text: 'mine' });
    // Claude's edit was version 2; the user's later edit (version 3) stays.
    await write('/memories/e.md', 'one', 'create');
    await write('/memories/e.md', 'two (Claude)', 'update');
    await write('/memories/e.md', 'three (user)', 'update');
    expect(await dispatch(r.handlers, 'chatUndo', [{ path: '/memories/e.md', version: 2, project: work.id }])).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await r.call('memoryRead', { path: '/memories/e.md', project: work.id })).toMatchObject({ text: 'three (user)', version: 3 });
    // The latest change is undone as before.
    expect(await r.call('chatUndo', { path: '/memories/e.md', version: 3, project: work.id })).toEqual({ restored: true });
    expect(await r.call('memoryRead', { path: '/memories/e.md', project: work.id })).toMatchObject({ text: 'two (Claude)', version: 4 });
    await write('/memories/new.md', 'fresh', 'create');
    expect(await r.call('chatUndo', { path: '/memories/new.md', version: 1, project: work.id })).toEqual({ restored: true });
    expect(await dispatch(r.handlers, 'memoryRead', [{ path: '/memories/new.md', project: work.id }])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('temporary chats over IPC', () => {
  it('live only in main: listed while unlocked, never in the vault, gone after a lock', async () => {
    const r = await rig();
    const keysBefore = r.session.unlocked().internal.keys('');
    const c = (await r.call('chatCreate', { temporary: true })) as { id: string; temporary?: boolean };
    expect(c.temporary).toBe(true);
    r.fake.script(reply(memoryCall({ command: 'create', path: '/memories/x.md', file_text: 'x' })), reply(text('I cannot keep that.')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'remember x' })) as { turnId: string };
    await turnDone(r, turnId);
    expect(await r.call('chatGet', { id: c.id })).toMatchObject({ temporary: true, transcript: [{ text: 'remember x' }, { text: 'I cannot keep that.', tools: [{ isError: true }] }] });
    expect(await r.call('chatList')).toEqual([expect.objectContaining({ id: c.id, temporary: true })]);
    expect(await r.call('memoryList')).toEqual([]);
    expect(r.session.unlocked().internal.keys('')).toEqual(keysBefore);
    // Edit last message works in a temporary chat as in a stored one.
    expect(await r.call('chatRewind', { id: c.id })).toEqual({ text: 'remember x' });
    expect(await r.call('chatGet', { id: c.id })).toMatchObject({ transcript: [] });
    await r.call('vaultLock');
    await r.call('vaultUnlock', { passphrase: PASS });
    expect(await r.call('chatList')).toEqual([]);
    expect(await dispatch(r.handlers, 'chatGet', [{ id: c.id }])).toMatchObject({ ok: false });
  });
});

describe('models, the context meter and export over IPC', () => {
  it('lists models with their context windows, keeps them in the vault and refreshes on demand', async () => {
    const r = await rig();
    const first = (await r.call('modelsList')) as { models: Array<{ id: string; contextWindow: number }> };
    expect(first.models.map((m) => [m.id, m.contextWindow])).toEqual([
      ['claude-sonnet-4-6', 1_000_000],
      ['claude-haiku-4-5', 200_000],
      // The API object states no window for this one: the table's default applies.
      ['claude-opus-4-1', 200_000],
    ]);
    await r.call('modelsList');
    expect(r.fake.extra.modelListCalls).toBe(1);
    r.fake.extra.models = [{ id: 'claude-new', display_name: 'New', max_input_tokens: 500_000 }];
    expect(((await r.call('modelsList', { refresh: true })) as { models: Array<{ id: string }> }).models.map((m) => m.id)).toEqual(['claude-new']);
    expect(r.fake.extra.modelListCalls).toBe(2);
  });

  it('the context meter counts the conversation as the next turn would send it', async () => {
    const r = await rig();
    const c = (await r.call('chatCreate')) as { id: string };
    expect(await r.call('chatContext', { id: c.id })).toMatchObject({ used: 0, source: 'none' });
    r.fake.script(reply(text('Hello there.')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'hi' })) as { turnId: string };
    await turnDone(r, turnId);
    const use = (await r.call('chatContext', { id: c.id })) as { used: number; window: number; source: string };
    const sent = r.fake.extra.countRequests.at(-1)!;
    expect(use).toMatchObject({ source: 'count', used: estimateTokens(sent), window: 1_000_000 });
    expect(sent.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
    ]);
  });

  it('exports a conversation as Markdown through the save dialog, memory operations included', async () => {
    const r = await rig();
    const c = (await r.call('chatCreate')) as { id: string };
    r.fake.script(reply(memoryCall({ command: 'create', path: '/memories/tea.md', file_text: 'likes tea' })), reply(text('Noted: tea.')));
    const { turnId } = (await r.call('chatSend', { id: c.id, text: 'I like tea' })) as { turnId: string };
    await turnDone(r, turnId);
    expect(await r.call('chatExport', { id: c.id })).toEqual({ saved: true });
    const md = await fs.readFile(r.saved[0]!, 'utf8');
    expect(path.basename(r.saved[0]!)).toBe('I like tea.md');
    expect(md).toContain('# I like tea');
    expect(md).toContain('## You\n\nI like tea');
    expect(md).toContain('> Memory: create `/memories/tea.md`');
    expect(md).toContain('Noted: tea.');
  });
});

describe('a model per conversation over IPC', () => {
  it('a conversation set to a model sends with it, meters and prices by it, keeps it after a lock, and goes back to Settings on null', async () => {
    const r = await rig();
    const c = (await r.call('chatCreate')) as { id: string };
    const send = async (text: string) => {
      r.fake.script(reply(textBlock(`re: ${text}`)));
      const { turnId } = (await r.call('chatSend', { id: c.id, text })) as { turnId: string };
      await turnDone(r, turnId);
      return r.fake.requests.at(-1)!.body.model;
    };
    expect(await send('one')).toBe('claude-sonnet-4-6');
    await r.call('chatSetModel', { id: c.id, model: 'claude-haiku-4-5' });
    expect(await r.call('chatGet', { id: c.id })).toMatchObject({ model: 'claude-haiku-4-5' });
    expect(await send('two')).toBe('claude-haiku-4-5');
    const usage = r.events.map((e) => (e.payload as { event?: { type: string; turn?: { model: string } } }).event).filter((e) => e?.type === 'usage').at(-1);
    expect(usage?.turn?.model).toBe('claude-haiku-4-5');
    expect(await r.call('chatContext', { id: c.id })).toMatchObject({ model: 'claude-haiku-4-5', window: 200_000 });
    await r.call('vaultLock');
    await r.call('vaultUnlock', { passphrase: PASS });
    expect(await r.call('chatGet', { id: c.id })).toMatchObject({ model: 'claude-haiku-4-5' });
    await r.call('chatSetModel', { id: c.id, model: null });
    expect(await r.call('chatGet', { id: c.id })).not.toHaveProperty('model');
    expect(await send('three')).toBe('claude-sonnet-4-6');
  });

  it('refuses a bad model or id with a clear error and changes nothing; a new or temporary chat can start on a model', async () => {
    const r = await rig();
    const c = (await r.call('chatCreate')) as { id: string };
    await r.call('chatSetModel', { id: c.id, model: 'claude-haiku-4-5' });
    for (const model of ['', 'x'.repeat(101), 42]) {
      expect(await dispatch(r.handlers, 'chatSetModel', [{ id: c.id, model }])).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    expect(await dispatch(r.handlers, 'chatSetModel', [{ id: '0123456789abcdef', model: 'claude-haiku-4-5' }])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await r.call('chatGet', { id: c.id })).toMatchObject({ model: 'claude-haiku-4-5' });
    const fresh = (await r.call('chatCreate', { model: 'claude-opus-4-1' })) as { id: string };
    expect(await r.call('chatGet', { id: fresh.id })).toMatchObject({ model: 'claude-opus-4-1' });
    const temp = (await r.call('chatCreate', { temporary: true, model: 'claude-haiku-4-5' })) as { id: string };
    r.fake.script(reply(textBlock('short-lived')));
    const { turnId } = (await r.call('chatSend', { id: temp.id, text: 'hi' })) as { turnId: string };
    await turnDone(r, turnId);
    expect(r.fake.requests.at(-1)!.body.model).toBe('claude-haiku-4-5');
    await r.call('chatSetModel', { id: temp.id, model: 'claude-sonnet-4-6' });
    expect(await r.call('chatGet', { id: temp.id })).toMatchObject({ model: 'claude-sonnet-4-6', temporary: true });
  });

  it('lists each model with its price tier, worked out when listed and never stored', async () => {
    const r = await rig();
    const list = (await r.call('modelsList')) as { models: Array<{ id: string; priceTier?: string }> };
    expect(Object.fromEntries(list.models.map((m) => [m.id, m.priceTier]))).toEqual({ 'claude-sonnet-4-6': 'standard', 'claude-haiku-4-5': 'economy', 'claude-opus-4-1': 'premium' });
    const stored = await r.session.unlocked().internal.getJSON<{ models: object[] }>('models');
    expect(stored?.models.every((m) => !('priceTier' in m))).toBe(true);
  });
});
