import { afterEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { tempVault, type TempVault } from '../vault/helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const user = (text: string, at = 1) => ({ role: 'user' as const, text, at });

it('a conversation stored before pin and archive existed lists as unpinned and not archived, and opens unchanged', async () => {
  t = await tempVault();
  // The single-value layout of the first versions, with none of the later fields, written as they wrote it.
  const old = { id: 'a1b2c3d4e5f60718', title: 'Old chat', created: 1000, updated: 2000, messages: [{ role: 'user', content: 'hi' }], transcript: [user('hi')] };
  await t.vault.internal.putJSON(`conversations/${old.id}`, old);
  const store = new Conversations(t.vault);
  const [s] = await store.list();
  expect(s).toEqual({ id: old.id, title: 'Old chat', created: 1000, updated: 2000, messageCount: 1 });
  expect(s!.pinned).toBeUndefined();
  expect(s!.archived).toBeUndefined();
  expect(await store.get(old.id)).toEqual(old);
});

it('pin and archive are stored with the conversation, keep its date, survive a reopen, and clear without a trace', async () => {
  t = await tempVault();
  const store = new Conversations(t.vault);
  const a = await store.create();
  // Through update, as the app changes a stored conversation: save is for a new one, and format 2 takes a save over a
  // stored head for another computer's concurrent write, merged with it (the newest date wins), not as this change.
  await store.update(a.id, (c) => ({ ...c, title: 'Kept', updated: 5000, transcript: [user('tea')] }));
  await store.setFlags(a.id, { pinned: true });
  await store.setFlags(a.id, { archived: true });
  expect(await store.list()).toEqual([expect.objectContaining({ id: a.id, pinned: true, archived: true, updated: 5000 })]);

  // The index is rebuilt from the heads on a new unlock: the flags come from the head, not only the index.
  await t.vault.internal.delete('conversations-index');
  const v = await t.reopen();
  const again = new Conversations(v);
  expect(await again.list()).toEqual([expect.objectContaining({ id: a.id, pinned: true, archived: true })]);
  await again.setFlags(a.id, { archived: false });
  expect((await again.list())[0]).toEqual(expect.objectContaining({ pinned: true }));
  expect((await again.list())[0]!.archived).toBeUndefined();
  await again.setFlags(a.id, { pinned: false });
  const head = (await again.get(a.id))!;
  expect('pinned' in head || 'archived' in head).toBe(false);
  expect(head.transcript).toEqual([user('tea')]);
});

it('flags on a conversation that does not exist, or a malformed id, are refused and change nothing', async () => {
  t = await tempVault();
  const store = new Conversations(t.vault);
  const a = await store.create();
  await expect(store.setFlags('0123456789abcdef', { pinned: true })).rejects.toThrow('That conversation no longer exists.');
  await expect(store.setFlags('../settings', { pinned: true })).rejects.toThrow('Unknown conversation id.');
  expect(await store.list()).toEqual([expect.objectContaining({ id: a.id })]);
  expect((await store.list())[0]!.pinned).toBeUndefined();
});
