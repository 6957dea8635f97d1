import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function unlockedApp() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-review-'));
  dirs.push(dir);
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }])).ok).toBe(true);
  return { ...made, run: (name: Parameters<typeof dispatch>[1], ...args: unknown[]) => dispatch(made.handlers, name, args) };
}
const by = { kind: 'claude' as const, conversationId: 'aaaabbbbccccdddd', turn: 1 };

it('the inbox lists Claude\'s changes, counts them per project and marks exact versions through the contract', async () => {
  const app = await unlockedApp();
  const vault = app.session.unlocked();
  await app.run('memoryWrite', { path: '/memories/mine.md', text: 'mine', mode: 'create' });
  await vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'claude', by });
  await vault.memory.writeFile('/memories/mine.md', 'changed by Claude', { mode: 'update', source: 'claude', by });
  expect(await app.run('reviewList')).toEqual({
    ok: true,
    value: [
      { path: '/memories/a.md', kind: 'new', version: 1, by },
      { path: '/memories/mine.md', kind: 'changed', version: 2, reviewedVersion: 1, by },
    ],
  });
  expect(await app.run('reviewCounts')).toEqual({ ok: true, value: { total: 2, projects: [{ project: 'default', count: 2 }] } });
  expect(await app.run('reviewMark', { items: [{ path: '/memories/a.md', version: 1 }] })).toEqual({ ok: true, value: { marked: 1 } });
  expect(await app.run('reviewCounts')).toMatchObject({ ok: true, value: { total: 1 } });
  await app.session.close();
});

it('a file Claude renames in the app is to review at its new path', async () => {
  const app = await unlockedApp();
  await app.run('memoryWrite', { path: '/memories/mine.md', text: 'mine', mode: 'create' });
  await app.session.unlocked().memory.rename('/memories/mine.md', '/memories/theirs.md', 'claude');
  expect(await app.run('reviewList')).toMatchObject({ ok: true, value: [{ path: '/memories/theirs.md', kind: 'new', from: '/memories/mine.md' }] });
  await app.session.close();
});

it('review calls refuse malformed input and paths outside /memories', async () => {
  const app = await unlockedApp();
  expect(await app.run('reviewMark', { items: [] })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  expect(await app.run('reviewMark', { items: [{ path: '/memories/a.md', version: 0 }] })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  expect(await app.run('reviewMark', { items: [{ path: '/etc/passwd', version: 1 }] })).toMatchObject({ ok: false, error: { code: 'BAD_PATH' } });
  expect(await app.run('reviewList', { project: '../x' })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  await app.session.close();
});
