/**
 * The context meter remembers token counts of histories with attachments, by a
 * hash of what was counted (the whole history, in words). Like every other
 * thing main derives from decrypted conversations (the versions' first
 * messages, branches.ts), it must not outlive the unlock: the app keeps one
 * Vault object, and one TemporaryConversations, across its locks.
 */
import { afterEach, expect, it } from 'vitest';
import { contextUse } from '../../../electron/core/chat/models';
import { TemporaryConversations } from '../../../electron/core/chat/temporary';
import { runTurn } from '../../../electron/core/chat/turn';
import { reply, text } from '../../fake-anthropic/server';
import { png } from '../../fixtures/attachments/make';
import { attach, chatRig, type ChatRig } from './helpers';
import { PASS } from '../vault/helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

it('a stored conversation’s remembered count is forgotten when the vault locks', async () => {
  rig = await chatRig();
  const r = rig;
  const c = await r.conversations.create();
  r.fake.script(reply(text('Seen.')));
  expect(await runTurn({ vault: r.t.vault, conversationId: c.id, userText: 'Look.', env: r.env, onEvent: () => undefined, attachments: [attach('a.png', png(8, 8, [1, 2, 3]))] })).toBe(true);
  const conv = await r.conversations.require(c.id);
  expect((await contextUse(r.t.vault, conv, { env: r.env })).source).toBe('count');
  expect((await contextUse(r.t.vault, conv, { env: r.env })).source).toBe('count');
  // Counted once: the second was remembered.
  expect(r.fake.extra.countRequests).toHaveLength(1);
  r.t.vault.lock();
  await r.t.vault.unlock(PASS);
  expect((await contextUse(r.t.vault, await r.conversations.require(c.id), { env: r.env })).source).toBe('count');
  expect(r.fake.extra.countRequests).toHaveLength(2);
});

it('a temporary chat’s remembered count goes with the chat when the vault locks', async () => {
  rig = await chatRig();
  const r = rig;
  const store = new TemporaryConversations();
  const c = store.create();
  r.fake.script(reply(text('Seen.')));
  expect(await runTurn({ vault: r.t.vault, conversationId: c.id, userText: 'Look.', env: r.env, onEvent: () => undefined, conversations: store, attachments: [attach('a.png', png(8, 8, [1, 2, 3]))] })).toBe(true);
  const conv = await store.require(c.id);
  expect((await contextUse(r.t.vault, conv, { env: r.env, attachments: store })).source).toBe('count');
  expect(r.fake.extra.countRequests).toHaveLength(1);
  // As main locks: the temporary chats go, then the keys.
  store.clear();
  r.t.vault.lock();
  await r.t.vault.unlock(PASS);
  // Nothing of the chat is left to count from: no remembered count may answer for it.
  const after = await contextUse(r.t.vault, conv, { env: r.env, attachments: store });
  expect(r.fake.extra.countRequests.length > 1 || after.source !== 'count').toBe(true);
});
