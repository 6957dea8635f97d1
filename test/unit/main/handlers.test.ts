import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { Handlers } from '../../../electron/main/handlers/types';
import { CALLS, CALL_NAMES, type CallName } from '../../../electron/shared/ipc';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fresh() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-handlers-'));
  dirs.push(dir);
  const events: Array<{ event: string; payload: unknown }> = [];
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: (event, payload) => events.push({ event, payload }) });
  return { ...made, dir, events };
}

// Inputs that no channel accepts: not an argument list, too many arguments, the wrong types.
const MALFORMED: unknown[] = ['not a list', null, [{ path: 42, passphrase: 7, id: 'x', query: 9, apiKey: 5 }, 'extra', 'more'], [[]], [1, 2, 3, 4]];

describe('the handler table', () => {
  it('has exactly one handler for every channel of the contract and nothing else', async () => {
    const { handlers, session } = await fresh();
    expect(Object.keys(handlers).sort()).toEqual([...CALL_NAMES].sort());
    for (const name of CALL_NAMES) expect(typeof handlers[name]).toBe('function');
    const channels = CALL_NAMES.map((n) => CALLS[n].channel);
    expect(new Set(channels).size).toBe(channels.length);
    await session.close();
  });

  it.each(CALL_NAMES)('%s refuses malformed input without running its handler', async (name: CallName) => {
    const spies = Object.fromEntries(CALL_NAMES.map((n) => [n, vi.fn(async () => null)])) as unknown as Handlers;
    for (const raw of MALFORMED) {
      const r = await dispatch(spies, name, raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).not.toMatch(/\/tmp|\/home|node_modules|at .*\.ts/);
    }
    expect(spies[name]).not.toHaveBeenCalled();
  });

  it('answers a thrown error as data with a code, never as an exception or a host path', async () => {
    const { handlers, session, dir } = await fresh();
    const locked = await dispatch(handlers, 'memoryList', []);
    expect(locked.ok).toBe(false);
    const missing = await dispatch(handlers, 'vaultUnlock', [{ passphrase: 'whatever it is' }]);
    expect(missing).toMatchObject({ ok: false, error: { code: 'NO_VAULT' } });
    expect(JSON.stringify([locked, missing])).not.toContain(dir);
    await session.close();
  });

  it('creates, locks and unlocks a vault, and refuses a wrong passphrase with BAD_PASSPHRASE', async () => {
    const { handlers, session, events } = await fresh();
    const created = await dispatch(handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }]);
    expect(created.ok).toBe(true);
    expect(await dispatch(handlers, 'vaultStatus', [])).toEqual({ ok: true, value: { exists: true, unlocked: true, rolledBack: false } });
    await dispatch(handlers, 'vaultLock', []);
    expect(events).toContainEqual({ event: 'vaultLocked', payload: { reason: 'user' } });
    expect(await dispatch(handlers, 'vaultUnlock', [{ passphrase: 'wrong horse' }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(await dispatch(handlers, 'vaultUnlock', [{ passphrase: 'correct horse battery staple' }])).toMatchObject({ ok: true });
    await session.close();
  });

  it('refuses a stale save with CONFLICT and keeps the newer text', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }]);
    await dispatch(handlers, 'memoryWrite', [{ path: '/memories/a.md', text: 'one', mode: 'create' }]);
    await session.unlocked().memory.writeFile('/memories/a.md', 'two (by Claude)', { mode: 'update', source: 'claude' });
    const stale = await dispatch(handlers, 'memoryWrite', [{ path: '/memories/a.md', text: 'mine', mode: 'update', expectedVersion: 1 }]);
    expect(stale).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await session.unlocked().memory.readFile('/memories/a.md')).toBe('two (by Claude)');
    await session.close();
  });

  it('refuses paths outside /memories and traversal, naming no host path', async () => {
    const { handlers, session, dir } = await fresh();
    await dispatch(handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }]);
    for (const p of ['/etc/passwd', '/memories/../x', '/memoriesX/a', `${dir}/vault/vault.json`, '/memories/%2e%2e/x']) {
      const r = await dispatch(handlers, 'memoryRead', [{ path: p }]);
      expect(r.ok, p).toBe(false);
      expect(JSON.stringify(r)).not.toContain(dir);
    }
    await session.close();
  });

  it('tells the renderer whether an API key is set, never the key', async () => {
    const { handlers, session } = await fresh();
    await dispatch(handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }]);
    const set = await dispatch(handlers, 'settingsSetApiKey', [{ apiKey: 'sk-ant-api03-secret-value-123' }]);
    const got = await dispatch(handlers, 'settingsGet', []);
    expect(set).toEqual({ ok: true, value: { hasApiKey: true, apiKeySource: 'vault' } });
    expect(got).toMatchObject({ ok: true, value: { hasApiKey: true } });
    expect(JSON.stringify([set, got])).not.toContain('secret-value');
    await session.close();
  });
});
