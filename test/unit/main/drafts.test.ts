import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { MAX_MEMORY_DRAFT_CHARS } from '../../../electron/shared/drafts';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fresh() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-drafts-'));
  dirs.push(dir);
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  return { ...made, dir };
}

async function filesUnder(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const f of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, f);
    // A temp file may be renamed away while the walk runs; only settled files matter.
    const stat = await fs.stat(full).catch(() => undefined);
    if (stat?.isFile()) out.push(await fs.readFile(full).catch(() => Buffer.alloc(0)));
  }
  return out;
}

const MEMORY_TEXT = '# Profile\nUnsaved edit 8812 that must survive a lock';
const CHAT_TEXT = 'Half-typed message 5530 to Claude';

describe('drafts across a lock', () => {
  it('an unsaved memory edit and chat message set before a lock are offered back after unlocking', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/profile.md', text: MEMORY_TEXT, baseVersion: 3 } }]);
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { conversationId: '0123456789abcdef', text: CHAT_TEXT } }]);
    await dispatch(handlers, 'vaultLock', []);
    expect(await dispatch(handlers, 'draftsGet', [])).toMatchObject({ ok: false, error: { code: 'LOCKED' } });
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({
      ok: true,
      value: { memory: { path: '/memories/profile.md', text: MEMORY_TEXT, baseVersion: 3 }, chat: { conversationId: '0123456789abcdef', text: CHAT_TEXT } },
    });
    await session.close();
  });

  it('an idle lock keeps the drafts too, and main holds none of their text while locked', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { text: CHAT_TEXT } }]);
    await session.lock('idle');
    expect(session.drafts.holdsAny()).toBe(false);
    // Kept encrypted: no file of the vault carries the text.
    for (const bytes of await filesUnder(session.dir)) expect(bytes.toString('latin1')).not.toContain('5530');
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: { chat: { text: CHAT_TEXT } } });
    await session.close();
  });

  it('a draft the user restored or discarded is not offered again after the next unlock', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/a.md', text: MEMORY_TEXT, baseVersion: 1 } }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toMatchObject({ ok: true, value: { memory: { path: '/memories/a.md' } } });
    await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: null }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
    await session.close();
  });

  it('a stored draft stays until dealt with, even across an unlock where the window never asked for it', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { text: CHAT_TEXT } }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: { chat: { text: CHAT_TEXT } } });
    await session.close();
  });

  it('drafts live outside /memories, where Claude cannot see them', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/a.md', text: MEMORY_TEXT, baseVersion: 1 } }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'memoryList', [])).toEqual({ ok: true, value: [] });
    expect(await dispatch(handlers, 'memorySearch', [{ query: '8812' }])).toEqual({ ok: true, value: [] });
    await session.close();
  });

  it('quitting with unsaved work keeps it for the next unlock', async () => {
    const { handlers, session, dir } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { text: CHAT_TEXT } }]);
    await session.close();
    const again = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
    await dispatch(again.handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(again.handlers, 'draftsGet', [])).toEqual({ ok: true, value: { chat: { text: CHAT_TEXT } } });
    await again.session.close();
  });

  it('refuses an oversized or malformed draft without keeping anything', async () => {
    const { handlers, session } = await fresh();
    const big = await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/a.md', text: 'x'.repeat(MAX_MEMORY_DRAFT_CHARS + 1), baseVersion: 1 } }]);
    expect(big).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    expect(await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { text: '' } }])).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    expect(await dispatch(handlers, 'draftsPut', [{ kind: 'settings', draft: { text: 'x' } }])).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    expect(session.drafts.holdsAny()).toBe(false);
    await session.close();
  });

  it('a draft that cannot be written does not keep the vault open: the lock still happens', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { text: CHAT_TEXT } }]);
    vi.spyOn(session.unlocked().internal, 'putJSON').mockRejectedValue(new Error('disk full'));
    expect(await dispatch(handlers, 'vaultLock', [])).toEqual({ ok: true, value: null });
    expect(session.isUnlocked()).toBe(false);
    expect(session.drafts.holdsAny()).toBe(false);
    await session.close();
  });
});

describe('a message typed in a temporary chat', () => {
  it('is not kept across a lock or quit: a temporary chat keeps nothing once locked', async () => {
    const { handlers, session, dir } = await fresh();
    const made = await dispatch(handlers, 'chatCreate', [{ temporary: true }]);
    const id = (made as { value: { id: string } }).value.id;
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { conversationId: id, text: CHAT_TEXT } }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
    // Nor at quit.
    const again = await dispatch(handlers, 'chatCreate', [{ temporary: true }]);
    await dispatch(handlers, 'draftsPut', [{ kind: 'chat', draft: { conversationId: (again as { value: { id: string } }).value.id, text: CHAT_TEXT } }]);
    await session.close();
    const next = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
    await dispatch(next.handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(next.handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
    await next.session.close();
  });
});

describe('an unsaved memory edit names its project', () => {
  it("is offered back after a lock with the project it was typed in, so it is restored into that project's file", async () => {
    const { handlers, session } = await fresh();
    const made = await dispatch(handlers, 'projectsCreate', [{ name: 'Garden' }]);
    const garden = (made as { value: { id: string } }).value.id;
    await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/roses.md', text: MEMORY_TEXT, baseVersion: 2, project: garden } }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: { memory: { path: '/memories/roses.md', text: MEMORY_TEXT, baseVersion: 2, project: garden } } });
    await session.close();
  });

  it('a draft kept before projects (no project) still comes back, meaning the first project', async () => {
    const { handlers, session } = await fresh();
    await session.unlocked().internal.putJSON('drafts/memory', { path: '/memories/old.md', text: MEMORY_TEXT, baseVersion: 1 });
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: { memory: { path: '/memories/old.md', text: MEMORY_TEXT, baseVersion: 1 } } });
    await session.close();
  });

  it('a draft naming something that is not a project id is refused at the boundary', async () => {
    const { handlers, session } = await fresh();
    expect(await dispatch(handlers, 'draftsPut', [{ kind: 'memory', draft: { path: '/memories/a.md', text: 'x', baseVersion: 1, project: '../etc' } }])).toMatchObject({ ok: false });
    await session.close();
  });
});

describe('messages being edited in place', () => {
  it('are kept encrypted across a lock, one per conversation, except those of a temporary chat', async () => {
    const { handlers, session } = await fresh();
    const made = await dispatch(handlers, 'chatCreate', [{ temporary: true }]);
    const temporary = (made as { value: { id: string } }).value.id;
    const kept = [
      { conversationId: '0123456789abcdef', entry: 2, text: 'Edited words 7319' },
      { conversationId: 'fedcba9876543210', entry: 0, text: '' },
    ];
    await dispatch(handlers, 'draftsPut', [{ kind: 'edit', draft: [...kept, { conversationId: temporary, entry: 0, text: 'gone with the chat' }] }]);
    await dispatch(handlers, 'vaultLock', []);
    expect(session.drafts.holdsAny()).toBe(false);
    for (const bytes of await filesUnder(session.dir)) expect(bytes.toString('latin1')).not.toContain('7319');
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: { edit: kept } });
    // Sent or cancelled: not offered again.
    await dispatch(handlers, 'draftsPut', [{ kind: 'edit', draft: null }]);
    await dispatch(handlers, 'vaultLock', []);
    await dispatch(handlers, 'vaultUnlock', [{ passphrase: PASS }]);
    expect(await dispatch(handlers, 'draftsGet', [])).toEqual({ ok: true, value: {} });
    await session.close();
  });

  it('are refused at the boundary when malformed or too many', async () => {
    const { handlers, session } = await fresh();
    const one = { conversationId: '0123456789abcdef', entry: 1, text: 'x' };
    for (const draft of [[], [{ ...one, entry: -1 }], [{ ...one, conversationId: '../x' }], [{ ...one, text: 'x'.repeat(100_001) }], Array.from({ length: 11 }, () => one)]) {
      expect(await dispatch(handlers, 'draftsPut', [{ kind: 'edit', draft }])).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    expect(session.drafts.holdsAny()).toBe(false);
    await session.close();
  });
});
