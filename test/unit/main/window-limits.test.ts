/**
 * The window's memory writes obey the memory tool's size limits: one file and
 * the whole vault stop at the same bounds as Claude's writes, refused with a
 * clear LIMIT error and nothing changed. Played through `dispatch`, the path
 * Electron's ipcMain and the e2e harness use, with the real handlers.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_LIMITS } from '../../../electron/core/memory/limits';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { CallName } from '../../../electron/shared/ipc';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function app(memoryLimits?: { maxFileBytes?: number; maxVaultBytes?: number }) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-winlimits-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined, ...(memoryLimits ? { memoryLimits } : {}) });
  cleanups.push(() => made.session.close());
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  const call = (name: CallName, ...args: unknown[]) => dispatch(made.handlers, name, args);
  const ok = async (name: CallName, ...args: unknown[]) => {
    const r = await call(name, ...args);
    if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const total = () => made.session.unlocked().memory.totalSize();
  return { ...made, call, ok, total };
}

const LIMIT = { ok: false, error: { code: 'LIMIT', message: expect.stringMatching(/limit/i) } };

describe('memory writes from the window', () => {
  it('refuses a file over the per-file limit before it is parsed further, and stores nothing', async () => {
    const a = await app();
    const big = 'a'.repeat(DEFAULT_MEMORY_LIMITS.maxFileBytes + 1);
    expect(await a.call('memoryWrite', { path: '/memories/big.md', text: big, mode: 'create' })).toMatchObject(LIMIT);
    const tenMB = 'b'.repeat(10 * 1024 * 1024);
    expect(await a.call('memoryWrite', { path: '/memories/huge.md', text: tenMB, mode: 'create' })).toMatchObject(LIMIT);
    expect(await a.ok('memoryList')).toEqual([]);
    expect(a.total()).toBe(0);
  });

  it('counts bytes, not characters: text under the character bound but over the byte limit is refused in core', async () => {
    const a = await app();
    // 400,000 euro signs are 1.2 MB of UTF-8: fewer characters than the limit, more bytes.
    const euros = '€'.repeat(400_000);
    expect(await a.call('memoryWrite', { path: '/memories/euros.md', text: euros, mode: 'create' })).toMatchObject({ ok: false, error: { code: 'LIMIT', message: expect.stringMatching(/over the 1M limit for one memory file/) } });
    expect(await a.ok('memoryList')).toEqual([]);
  });

  it('stops the vault growing past its total limit, as Claude’s writes do; shrinking a file still works', async () => {
    const a = await app({ maxFileBytes: 1000, maxVaultBytes: 2500 });
    await a.ok('memoryWrite', { path: '/memories/a.md', text: 'a'.repeat(1000), mode: 'create' });
    await a.ok('memoryWrite', { path: '/memories/b.md', text: 'b'.repeat(1000), mode: 'create' });
    expect(await a.call('memoryWrite', { path: '/memories/c.md', text: 'c'.repeat(1000), mode: 'create' })).toMatchObject({ ok: false, error: { code: 'LIMIT', message: expect.stringMatching(/over its .* limit/) } });
    expect(await a.call('memoryWrite', { path: '/memories/a.md', text: 'a'.repeat(1001), mode: 'update' })).toMatchObject(LIMIT);
    expect(a.total()).toBe(2000);
    await a.ok('memoryWrite', { path: '/memories/a.md', text: 'short', mode: 'update' });
    expect(a.total()).toBe(1005);
  });

  it('refuses to restore a version, bring one back from the trash or undo a change when that passes the limit', async () => {
    const a = await app({ maxFileBytes: 1000, maxVaultBytes: 2500 });
    await a.ok('memoryWrite', { path: '/memories/a.md', text: 'a'.repeat(1000), mode: 'create' });
    await a.ok('memoryWrite', { path: '/memories/a.md', text: 'a', mode: 'update' });
    await a.ok('memoryWrite', { path: '/memories/t.md', text: 't'.repeat(900), mode: 'create' });
    await a.ok('memoryDelete', { path: '/memories/t.md' });
    await a.ok('memoryWrite', { path: '/memories/b.md', text: 'b'.repeat(1000), mode: 'create' });
    await a.ok('memoryWrite', { path: '/memories/c.md', text: 'c'.repeat(1000), mode: 'create' });
    const before = a.total();
    expect(await a.call('memoryRestore', { path: '/memories/a.md', version: 1 })).toMatchObject(LIMIT);
    expect(await a.call('memoryTrashRestore', { path: '/memories/t.md' })).toMatchObject(LIMIT);
    expect(await a.call('chatUndo', { path: '/memories/a.md', version: 2 })).toMatchObject(LIMIT);
    expect(a.total()).toBe(before);
    expect(await a.ok('memoryRead', { path: '/memories/a.md' })).toEqual({ text: 'a', version: 2 });
    expect(await a.ok('memoryTrash')).toHaveLength(1);
  });

  it('refuses to copy a memory into another project past the total limit', async () => {
    const a = await app({ maxFileBytes: 1000, maxVaultBytes: 2500 });
    const other = (await a.ok('projectsCreate', { name: 'Other' })) as { id: string };
    const first = ((await a.ok('projectsList')) as { projects: Array<{ id: string }> }).projects[0]!.id;
    await a.ok('memoryWrite', { path: '/memories/a.md', text: 'a'.repeat(1000), mode: 'create' });
    await a.ok('memoryWrite', { path: '/memories/b.md', text: 'b'.repeat(1000), mode: 'create' });
    expect(await a.call('memoryTransfer', { fromProject: first, path: '/memories/a.md', toProject: other.id, mode: 'copy' })).toMatchObject(LIMIT);
    expect(await a.ok('memoryList', { project: other.id })).toEqual([]);
  });

  it('refuses a memory draft larger than a memory file', async () => {
    const a = await app();
    const draft = { path: '/memories/a.md', text: 'd'.repeat(DEFAULT_MEMORY_LIMITS.maxFileBytes + 1), baseVersion: 0 };
    expect(await a.call('draftsPut', { kind: 'memory', draft })).toMatchObject({ ok: false });
    expect(await a.ok('draftsGet')).toEqual({});
  });
});

describe('the contract’s bound on a memory’s text', () => {
  it('is the memory tool’s per-file limit, so the window can never send more than one file may hold', async () => {
    const { MAX_MEMORY_TEXT_CHARS } = await import('../../../electron/shared/limits');
    const { MAX_MEMORY_DRAFT_CHARS } = await import('../../../electron/shared/drafts');
    expect(MAX_MEMORY_TEXT_CHARS).toBe(DEFAULT_MEMORY_LIMITS.maxFileBytes);
    expect(MAX_MEMORY_DRAFT_CHARS).toBe(DEFAULT_MEMORY_LIMITS.maxFileBytes);
  });
});
