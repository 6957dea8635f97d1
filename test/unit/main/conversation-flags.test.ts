/** Pin and archive through the IPC handler table, as the window (or a hostile page) calls them. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { Handlers } from '../../../electron/main/handlers/types';
import type { AppSession } from '../../../electron/main/handlers/session';

let dir: string;
let handlers: Handlers;
let session: AppSession;
const value = async (name: keyof Handlers, ...args: unknown[]) => {
  const r = await dispatch(handlers, name, args);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-flags-'));
  ({ handlers, session } = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined }));
  await value('vaultCreate', { passphrase: 'correct horse battery staple' });
});
afterAll(async () => {
  await session.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it('pins and archives a stored conversation; the list carries the flags', async () => {
  const c = (await value('chatCreate')) as { id: string };
  await value('chatSetFlags', { id: c.id, pinned: true });
  await value('chatSetFlags', { id: c.id, archived: true });
  expect(await value('chatList')).toEqual([expect.objectContaining({ id: c.id, pinned: true, archived: true })]);
  await value('chatSetFlags', { id: c.id, pinned: false, archived: false });
  const [after] = (await value('chatList')) as Array<Record<string, unknown>>;
  expect(after).not.toHaveProperty('pinned');
  expect(after).not.toHaveProperty('archived');
  await value('chatDelete', { id: c.id });
});

it('a hostile page calling with a bad id, an unknown id or nothing to change gets a clear error, and nothing changes', async () => {
  const c = (await value('chatCreate')) as { id: string };
  const before = await value('chatList');
  for (const args of [[{ id: '../conversations-index', pinned: true }], [{ id: c.id }], [{ id: c.id, pinned: 'yes' }], [{ id: c.id, pinned: true, extra: 1 }], []]) {
    const r = await dispatch(handlers, 'chatSetFlags', args);
    if (r.ok) expect(args).toEqual([{ id: c.id, pinned: true, extra: 1 }]);
    else expect(r.error.message).toMatch(/^[A-Z].*\.$/);
  }
  const unknown = await dispatch(handlers, 'chatSetFlags', [{ id: '0123456789abcdef', archived: true }]);
  expect(unknown).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'That conversation no longer exists.', key: 'errors:conversation.gone' } });
  expect(JSON.stringify(unknown)).not.toContain(dir);
  // The one call a page could slip an extra key into is stripped to what the contract allows.
  await value('chatSetFlags', { id: c.id, pinned: false });
  expect(await value('chatList')).toEqual(before);
});

it('a temporary chat can be pinned but not archived', async () => {
  const t = (await value('chatCreate', { temporary: true })) as { id: string };
  await value('chatSetFlags', { id: t.id, pinned: true });
  expect(await value('chatList')).toContainEqual(expect.objectContaining({ id: t.id, temporary: true, pinned: true }));
  const r = await dispatch(handlers, 'chatSetFlags', [{ id: t.id, archived: true }]);
  expect(r).toEqual({ ok: false, error: { code: 'INVALID', message: expect.stringMatching(/cannot be archived/), key: 'errors:conversation.temporaryArchive' } });
});
