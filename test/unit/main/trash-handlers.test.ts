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
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-trash-'));
  dirs.push(dir);
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }])).ok).toBe(true);
  return { ...made, run: (name: Parameters<typeof dispatch>[1], ...args: unknown[]) => dispatch(made.handlers, name, args) };
}

it('the memory list names each file’s last writer, and versions list the current one with who wrote each', async () => {
  const app = await unlockedApp();
  await app.run('memoryWrite', { path: '/memories/a.md', text: 'one', mode: 'create' });
  await app.session.unlocked().memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'claude', by: { kind: 'claude', conversationId: 'aaaabbbbccccdddd', turn: 2 } });
  expect(await app.run('memoryList')).toMatchObject({ ok: true, value: [{ path: '/memories/a.md', by: { kind: 'claude', conversationId: 'aaaabbbbccccdddd', turn: 2 } }] });
  expect(await app.run('memoryVersions', { path: '/memories/a.md' })).toMatchObject({
    ok: true,
    value: [
      { version: 1, current: false, by: { kind: 'user' } },
      { version: 2, current: true, by: { kind: 'claude', turn: 2 } },
    ],
  });
  await app.session.close();
});

it('deleted memories are listed, restored (refused while the path is taken) and emptied through the contract', async () => {
  const app = await unlockedApp();
  await app.run('memoryWrite', { path: '/memories/a.md', text: 'one', mode: 'create' });
  await app.run('memoryDelete', { path: '/memories/a.md' });
  expect(await app.run('memoryTrash')).toMatchObject({ ok: true, value: [{ path: '/memories/a.md', by: { kind: 'user' }, versions: [{ version: 1 }] }] });
  await app.run('memoryMkdir', { path: '/memories/a.md' });
  expect(await app.run('memoryTrashRestore', { path: '/memories/a.md' })).toMatchObject({ ok: false, error: { code: 'EXISTS' } });
  await app.run('memoryDelete', { path: '/memories/a.md' });
  expect(await app.run('memoryTrashRestore', { path: '/memories/a.md', version: 1 })).toMatchObject({ ok: true, value: { path: '/memories/a.md', by: { kind: 'restore', fromVersion: 1 } } });
  expect(await app.run('memoryRead', { path: '/memories/a.md' })).toMatchObject({ ok: true, value: { text: 'one' } });
  await app.run('memoryWrite', { path: '/memories/b.md', text: 'bee', mode: 'create' });
  await app.run('memoryDelete', { path: '/memories/b.md' });
  expect(await app.run('memoryTrashEmpty', {})).toEqual({ ok: true, value: { removed: 1 } });
  expect(await app.run('memoryTrash')).toEqual({ ok: true, value: [] });
  await app.session.close();
});

it('trash calls check paths by the memory rules in main', async () => {
  const app = await unlockedApp();
  for (const bad of ['/etc/passwd', '/memories/../x', '/memories/%2e%2e/x']) {
    expect(await app.run('memoryTrashRestore', { path: bad })).toMatchObject({ ok: false, error: { code: 'BAD_PATH' } });
    expect(await app.run('memoryTrashEmpty', { paths: [bad] })).toMatchObject({ ok: false, error: { code: 'BAD_PATH' } });
    expect(await app.run('memoryVersions', { path: bad })).toMatchObject({ ok: false, error: { code: 'BAD_PATH' } });
  }
  await app.session.close();
});

it('each project’s trash, versions and writers are its own: the first project neither lists nor empties another’s deleted memories', async () => {
  const app = await unlockedApp();
  const made = await app.run('projectsCreate', { name: 'Work' });
  const work = (made as { value: { id: string } }).value.id;
  await app.run('memoryWrite', { path: '/memories/home.md', text: 'home', mode: 'create' });
  await app.run('memoryWrite', { path: '/memories/work.md', text: 'work', mode: 'create', project: work });
  expect(await app.run('memoryList', { project: work })).toMatchObject({ ok: true, value: [{ path: '/memories/work.md', by: { kind: 'user' } }] });
  expect(await app.run('memoryVersions', { path: '/memories/work.md', project: work })).toMatchObject({ ok: true, value: [{ version: 1, current: true }] });
  expect(await app.run('memoryVersions', { path: '/memories/work.md' })).toEqual({ ok: true, value: [] });
  await app.run('memoryDelete', { path: '/memories/home.md' });
  await app.run('memoryDelete', { path: '/memories/work.md', project: work });
  expect(await app.run('memoryTrash')).toMatchObject({ ok: true, value: [{ path: '/memories/home.md' }] });
  expect((await app.run('memoryTrash')) as { value: unknown[] }).toHaveProperty('value.length', 1);
  expect(await app.run('memoryTrash', { project: work })).toMatchObject({ ok: true, value: [{ path: '/memories/work.md' }] });
  expect(await app.run('memoryTrashEmpty', {})).toMatchObject({ ok: true, value: { removed: 1 } });
  expect(await app.run('memoryTrash', { project: work })).toMatchObject({ ok: true, value: [{ path: '/memories/work.md' }] });
  expect(await app.run('memoryTrashRestore', { path: '/memories/work.md', project: work })).toMatchObject({ ok: true, value: { path: '/memories/work.md' } });
  expect(await app.run('memoryRead', { path: '/memories/work.md', project: work })).toMatchObject({ ok: true, value: { text: 'work' } });
  await app.session.close();
});
