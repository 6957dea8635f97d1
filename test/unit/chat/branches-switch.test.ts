/**
 * What switching versions writes (branches.ts): a version set aside unchanged
 * since it was shown is named again from its kept copy, not stored again, so
 * going back and forth at the first message of a long conversation stores
 * only what changed; a version changed since is stored anew and its stale
 * copy goes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';

/** A stored version's key, `conversation-log/<id>/b<16 hex>`: not format 2's records of a device whose id starts with b (`conversation-log/<id>/b…/<n>`). */
const isTailKey = (k: string): boolean => /\/b[0-9a-f]{16}$/.test(k);

let t: TempVault;
beforeAll(async () => {
  t = await tempVault();
});
afterAll(async () => {
  await t.cleanup();
});

const exchange = (c: StoredConversation, q: string): StoredConversation => ({
  ...c,
  messages: [...c.messages, { role: 'user', content: q }, { role: 'assistant', content: [{ type: 'text', text: `answer to ${q}` }] }],
  turnStarts: [...(c.turnStarts ?? []), c.messages.length],
  transcript: [...c.transcript, { role: 'user', text: q, at: 1 }, { role: 'assistant', text: `answer to ${q}`, at: 1, tools: [] }],
});

/** `vault` whose stores of versions (`conversation-log/<id>/b…`) are counted, with their sizes. */
function counting(vault: VaultApi): { vault: VaultApi; puts: number[] } {
  const puts: number[] = [];
  const inner = vault.internal;
  const internal: VaultApi['internal'] = {
    ...inner,
    get: (k) => inner.get(k),
    getJSON: (k) => inner.getJSON(k),
    keys: (p) => inner.keys(p),
    put: (k, v) => inner.put(k, v),
    delete: (k) => inner.delete(k),
    putJSON: async (k, v) => {
      if (/\/b[0-9a-f]{16}$/.test(k)) puts.push(JSON.stringify(v).length);
      return inner.putJSON(k, v);
    },
  };
  return { vault: new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) }), puts };
}

const storedVersions = (id: string) => t.vault.internal.keys(`conversation-log/${id}/b`).filter(isTailKey).length;

/** A conversation of `n` exchanges whose first message has a second, one-exchange version, shown. */
async function longWithShortVersion(store: Conversations, n: number): Promise<string> {
  const id = (await store.create()).id;
  await store.update(id, (c) => Array.from({ length: n }, (_, i) => `q${i}`).reduce(exchange, c));
  await store.branch(id, 0, 'edit');
  await store.update(id, (c) => exchange(c, 'short'));
  return id;
}

it('going back and forth at the first message stores the long version once, not at every switch', async () => {
  const { vault, puts } = counting(t.vault);
  const store = new Conversations(vault);
  const id = await longWithShortVersion(store, 40);
  const long = puts[0]!;
  await store.showVersion(id, 0, 0);
  await store.showVersion(id, 0, 1);
  await store.showVersion(id, 0, 0);
  await store.showVersion(id, 0, 1);
  // The long version once (when the short one was made) and the short one once (the first time it was set aside).
  expect(puts.length).toBe(2);
  expect(puts.reduce((a, b) => a + b, 0)).toBeLessThan(long * 1.2);
  const shown = await store.require(id);
  expect(shown.transcript.map((e) => e.text)).toEqual(['short', 'answer to short']);
  // Each version is stored once: the one shown as its kept copy, the other as a version.
  expect(storedVersions(id)).toBe(2);
  await store.showVersion(id, 0, 0);
  expect((await store.require(id)).transcript).toHaveLength(80);
});

it('a version changed since it was shown is stored anew when set aside, its stale copy goes, and both versions come back whole', async () => {
  const { vault, puts } = counting(t.vault);
  const store = new Conversations(vault);
  const id = await longWithShortVersion(store, 3);
  await store.showVersion(id, 0, 0);
  await store.update(id, (c) => exchange(c, 'later'));
  const before = puts.length;
  await store.showVersion(id, 0, 1);
  expect(puts.length).toBe(before + 1);
  expect(storedVersions(id)).toBe(2);
  await store.showVersion(id, 0, 0);
  expect((await store.require(id)).transcript.map((e) => e.text).slice(-2)).toEqual(['later', 'answer to later']);
  await store.showVersion(id, 0, 1);
  expect((await store.require(id)).transcript.map((e) => e.text)).toEqual(['short', 'answer to short']);
});

it('a new version made from one shown unchanged names its kept copy instead of storing it again', async () => {
  const { vault, puts } = counting(t.vault);
  const store = new Conversations(vault);
  const id = await longWithShortVersion(store, 20);
  await store.showVersion(id, 0, 0);
  const before = puts.length;
  const { before: was } = await store.branch(id, 0, 'regenerate');
  expect(was).toBe(0);
  expect(puts.length).toBe(before);
  await store.update(id, (c) => exchange(c, 'q0'));
  expect(storedVersions(id)).toBe(2);
  await store.showVersion(id, 0, 0);
  expect((await store.require(id)).transcript).toHaveLength(40);
});
