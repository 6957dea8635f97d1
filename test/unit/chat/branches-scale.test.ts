/**
 * Versions of a long conversation: built cheaply through Conversations.update
 * (1,000 exchanges under MNEMO_DEEP=1, fewer in `npm test`), then versions made
 * at the first and the last exchange and switched back and forth. The head
 * holds only the forks' small records, and a normal turn's save after them
 * writes what it wrote before (sizes, not times: speed is for bench:storage).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import { versionsOf } from '../../../electron/core/chat/branches';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';

const DEEP = process.env.MNEMO_DEEP === '1';
const TURNS = DEEP ? 1000 : 150;

let t: TempVault;
beforeAll(async () => {
  t = await tempVault();
});
afterAll(async () => {
  await t.cleanup();
});

const exchange = (c: StoredConversation, q: string): StoredConversation => ({
  ...c,
  updated: c.updated + 1,
  messages: [...c.messages, { role: 'user', content: q }, { role: 'assistant', content: [{ type: 'text', text: `answer to ${q}, ${'about as long as a real reply. '.repeat(20)}` }] }],
  turnStarts: [...(c.turnStarts ?? []), c.messages.length],
  transcript: [...c.transcript, { role: 'user', text: q, at: 1 }, { role: 'assistant', text: `answer to ${q}`, at: 1, tools: [] }],
});

/** Bytes of the JSON values a call puts into the vault's internal store, by key. */
function counting(vault: VaultApi): { vault: VaultApi; puts: Map<string, number> } {
  const puts = new Map<string, number>();
  const inner = vault.internal;
  const internal: VaultApi['internal'] = {
    ...inner,
    get: (k) => inner.get(k),
    getJSON: (k) => inner.getJSON(k),
    keys: (p) => inner.keys(p),
    delete: (k) => inner.delete(k),
    put: (k, v) => (puts.set(k, (puts.get(k) ?? 0) + v.length), inner.put(k, v)),
    putJSON: (k, v) => (puts.set(k, (puts.get(k) ?? 0) + JSON.stringify(v).length), inner.putJSON(k, v)),
  };
  return { vault: new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) }), puts };
}

/** What one more ordinary turn's save writes: its log record, and the head. (A merged group, once per 32 records, is the log's own cost.) */
async function turnCost(id: string): Promise<{ record: number; head: number }> {
  const { vault, puts } = counting(t.vault);
  await new Conversations(vault).update(id, (c) => exchange(c, 'one more turn'));
  // Format 1's records are `conversation-log/<id>/<n>`; format 2's are per computer, `conversation-log/<id>/<device>/<n>`.
  const record = [...puts].filter(([k]) => /^conversation-log\/[0-9a-f]+\/(?:[^/]+\/)?\d+$/.test(k));
  expect(record.length).toBe(1);
  return { record: record[0]![1], head: puts.get(`conversations/${id}`) ?? 0 };
}

describe(`versions of a ${TURNS}-exchange conversation`, () => {
  it('branch at the first and the last exchange, switch back and forth: exact transcripts, a small head, and turns that cost what they did', async () => {
    const store = new Conversations(t.vault);
    const id = (await store.create()).id;
    let c = await store.require(id);
    for (let i = 0; i < TURNS; i++) c = (await store.update(id, (x) => exchange(x, `q${i}`), c))!;
    const plain = await turnCost(id);
    const whole = await store.require(id);

    await store.branch(id, 0, 'edit');
    await store.update(id, (x) => exchange(x, 'q0 edited'));
    await store.branch(id, 0, 'regenerate');
    await store.update(id, (x) => exchange(x, 'q0 edited'));
    // Version 1 of 3 is the whole conversation: switch to it and make a version of its last exchange too.
    await store.showVersion(id, 0, 0);
    expect((await store.require(id)).transcript).toEqual(whole.transcript);
    await store.branch(id, TURNS, 'regenerate');
    await store.update(id, (x) => exchange(x, 'one more turn, again'));
    const withLast = await store.require(id);
    expect(versionsOf(withLast)).toEqual([
      { entry: 0, shown: 0, count: 3, by: 'edit' },
      { entry: 2 * TURNS, shown: 1, count: 2, by: 'regenerate' },
    ]);
    for (let round = 0; round < (DEEP ? 10 : 3); round++) {
      await store.showVersion(id, 0, 2);
      expect((await store.require(id)).transcript.map((e) => e.text)).toEqual(['q0 edited', 'answer to q0 edited']);
      await store.showVersion(id, 0, 0);
      expect((await store.require(id)).transcript).toEqual(withLast.transcript);
      await store.showVersion(id, TURNS, 0);
      await store.showVersion(id, TURNS, 1);
    }
    const reread = await new Conversations(t.vault).require(id);
    expect({ m: reread.messages, t: reread.transcript, s: reread.turnStarts, v: versionsOf(reread) }).toEqual({ m: withLast.messages, t: withLast.transcript, s: withLast.turnStarts, v: versionsOf(withLast) });

    // The head names the forks, never their tails: a few hundred bytes more, whatever the conversation's length.
    const after = await turnCost(id);
    expect(after.head - plain.head).toBeLessThan(600);
    expect(after.record).toBe(plain.record);
    expect(JSON.stringify((await store.require(id)).forks).length).toBeLessThan(600);
  });
});
