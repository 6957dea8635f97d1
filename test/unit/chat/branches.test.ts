/**
 * Conversation versions (branches.ts) on a real vault, with real turns against
 * the fake Anthropic server: what the window shows and what Claude is sent
 * next must both be the version shown, however often it is switched.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import { TemporaryConversations } from '../../../electron/core/chat/temporary';
import { groupedVersionsOf, MAX_VERSIONS, versionsOf } from '../../../electron/core/chat/branches';
import { runTurn, type PendingAttachment } from '../../../electron/core/chat/turn';
import type { ChatEvent } from '../../../electron/shared/chat';
import { attachmentBlocks, reply, text, type RecordedRequest } from '../../fake-anthropic/server';
import { png } from '../../fixtures/attachments/make';
import { attach, chatRig, type ChatRig } from './helpers';
import { PASS } from '../vault/helpers';

/** A stored version's key, `conversation-log/<id>/b<16 hex>`: not format 2's records of a device whose id starts with b (`conversation-log/<id>/b…/<n>`). */
const isTailKey = (k: string): boolean => /\/b[0-9a-f]{16}$/.test(k);

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** One turn answered with `answer`; true if it was saved. */
async function turn(r: ChatRig, id: string, words: string, answer: string, more: { attachments?: PendingAttachment[]; store?: TemporaryConversations } = {}): Promise<boolean> {
  r.fake.script(reply(text(answer)));
  const events: ChatEvent[] = [];
  return runTurn({ vault: r.t.vault, conversationId: id, userText: words, env: r.env, onEvent: (e) => events.push(e), ...(more.attachments ? { attachments: more.attachments } : {}), ...(more.store ? { conversations: more.store } : {}) });
}

/** The words of each message of a request, as Claude was sent them (attachments left out). */
function sent(req: RecordedRequest | undefined): string[] {
  return (req?.body.messages ?? []).map((m) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Array<{ type: string; text?: string }>);
    return `${m.role}: ${blocks.flatMap((b) => (b.type === 'text' && b.text ? [b.text] : [])).join(' ')}`;
  });
}

/** What the user sees and what Claude is sent of a conversation. */
const shape = (c: StoredConversation) => ({ transcript: c.transcript.map((e) => `${e.role}: ${e.text}`), messages: c.messages, turnStarts: c.turnStarts ?? [] });

/** A conversation of `n` answered exchanges "q0".."q{n-1}" / "a0".. */
async function withExchanges(r: ChatRig, n: number, store?: TemporaryConversations): Promise<string> {
  const id = store ? store.create().id : (await r.conversations.create()).id;
  for (let i = 0; i < n; i++) expect(await turn(r, id, `q${i}`, `a${i}`, store ? { store } : {})).toBe(true);
  return id;
}

describe('versions of a stored conversation', () => {
  it('a regenerated reply is a new version; switching back and forth restores the exact transcript and what Claude is sent next', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 3);
    const original = shape(await r.conversations.require(id));
    const { message, before } = await r.conversations.branch(id, 1, 'regenerate');
    expect(message.text).toBe('q1');
    expect(before).toBe(0);
    expect(await turn(r, id, message.text, 'a1 again')).toBe(true);
    expect(sent(r.fake.requests.at(-1))).toEqual(['user: q0', 'assistant: a0', 'user: q1']);
    const second = shape(await r.conversations.require(id));
    expect(second.transcript).toEqual(['user: q0', 'assistant: a0', 'user: q1', 'assistant: a1 again']);
    expect(versionsOf(await r.conversations.require(id))).toEqual([{ entry: 2, shown: 1, count: 2, by: 'regenerate' }]);

    await r.conversations.showVersion(id, 1, 0);
    expect(shape(await r.conversations.require(id))).toEqual(original);
    // The next turn continues the version shown: Claude is sent its history, not the other one.
    expect(await turn(r, id, 'q3', 'a3')).toBe(true);
    expect(sent(r.fake.requests.at(-1))).toEqual(['user: q0', 'assistant: a0', 'user: q1', 'assistant: a1', 'user: q2', 'assistant: a2', 'user: q3']);
    const firstGrown = shape(await r.conversations.require(id));

    await r.conversations.showVersion(id, 1, 1);
    expect(shape(await r.conversations.require(id))).toEqual(second);
    expect(await turn(r, id, 'q2 in v2', 'a2 in v2')).toBe(true);
    expect(sent(r.fake.requests.at(-1))).toEqual(['user: q0', 'assistant: a0', 'user: q1', 'assistant: a1 again', 'user: q2 in v2']);
    await r.conversations.showVersion(id, 1, 0);
    expect(shape(await r.conversations.require(id))).toEqual(firstGrown);
    // Showing the version already shown changes nothing.
    const head = JSON.stringify(await r.conversations.require(id));
    await r.conversations.showVersion(id, 1, 0);
    expect(JSON.stringify(await r.conversations.require(id))).toBe(head);
  });

  it('nested versions: an edit inside a version comes back intact when the outer fork is switched away and back', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 3);
    await r.conversations.branch(id, 0, 'regenerate');
    expect(await turn(r, id, 'q0', 'b0')).toBe(true);
    expect(await turn(r, id, 'q1', 'b1')).toBe(true);
    expect(await turn(r, id, 'q2', 'b2')).toBe(true);
    await r.conversations.branch(id, 2, 'edit');
    expect(await turn(r, id, 'q2 edited', 'b2 edited')).toBe(true);
    const inner = shape(await r.conversations.require(id));
    const innerVersions = versionsOf(await r.conversations.require(id));
    expect(innerVersions).toEqual([
      { entry: 0, shown: 1, count: 2, by: 'regenerate' },
      { entry: 4, shown: 1, count: 2, by: 'edit' },
    ]);
    await r.conversations.showVersion(id, 0, 0);
    expect(shape(await r.conversations.require(id)).transcript).toEqual(['user: q0', 'assistant: a0', 'user: q1', 'assistant: a1', 'user: q2', 'assistant: a2']);
    expect(versionsOf(await r.conversations.require(id))).toEqual([{ entry: 0, shown: 0, count: 2, by: 'regenerate' }]);
    await r.conversations.showVersion(id, 0, 1);
    expect(shape(await r.conversations.require(id))).toEqual(inner);
    expect(versionsOf(await r.conversations.require(id))).toEqual(innerVersions);
    await r.conversations.showVersion(id, 2, 0);
    expect(shape(await r.conversations.require(id)).transcript.slice(4)).toEqual(['user: q2', 'assistant: b2']);
    expect(await turn(r, id, 'q3', 'b3')).toBe(true);
    expect(sent(r.fake.requests.at(-1))).toEqual(['user: q0', 'assistant: b0', 'user: q1', 'assistant: b1', 'user: q2', 'assistant: b2', 'user: q3']);
  });

  it("a set-aside version's attachments survive the next turns' pruning and go again when it is regenerated", async () => {
    rig = await chatRig();
    const r = rig;
    const id = (await r.conversations.create()).id;
    const pic = attach('pic.png', png(2, 2));
    expect(await turn(r, id, 'look', 'a picture', { attachments: [pic] })).toBe(true);
    expect(await turn(r, id, 'more', 'sure')).toBe(true);
    await r.conversations.branch(id, 0, 'edit');
    // The edit goes without the picture; its save prunes every attachment no message names.
    expect(await turn(r, id, 'look, no picture', 'nothing to see')).toBe(true);
    expect(await turn(r, id, 'and now', 'still nothing')).toBe(true);
    expect(await r.conversations.getAttachment(id, pic.id)).toEqual(pic.data);
    await r.conversations.showVersion(id, 0, 0);
    const { message } = await r.conversations.branch(id, 0, 'regenerate');
    expect(message.attachments.map((a) => a.id)).toEqual([pic.id]);
    const again = { ...message.attachments[0]!, data: (await r.conversations.getAttachment(id, pic.id))! };
    expect(await turn(r, id, message.text, 'the picture again', { attachments: [again] })).toBe(true);
    expect(attachmentBlocks(r.fake.requests.at(-1)!).map((b) => b.type)).toEqual(['image']);
  });

  it('deleting the conversation removes every stored version; a reopened vault shows the same versions', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 2);
    await r.conversations.branch(id, 0, 'edit');
    expect(await turn(r, id, 'q0 edited', 'x0')).toBe(true);
    expect(await turn(r, id, 'q1b', 'x1')).toBe(true);
    await r.conversations.branch(id, 1, 'regenerate');
    expect(await turn(r, id, 'q1b', 'x1 again')).toBe(true);
    const before = await r.conversations.require(id);
    const keys = r.t.vault.internal.keys(`conversation-log/${id}/`).filter((k) => /\/b[0-9a-f]{16}$/.test(k));
    expect(keys.length).toBe(2);
    const reopened = new Conversations(await r.t.reopen());
    const after = await reopened.require(id);
    expect(shape(after)).toEqual(shape(before));
    expect(versionsOf(after)).toEqual(versionsOf(before));
    await reopened.showVersion(id, 0, 0);
    expect(shape(await reopened.require(id)).transcript).toEqual(['user: q0', 'assistant: a0', 'user: q1', 'assistant: a1']);
    await reopened.delete(id);
    expect(r.t.vault.internal.keys(`conversation-log/${id}/`)).toEqual([]);
  });

  it('taking back the last exchange is refused once it has versions, and the conversation is unchanged', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 2);
    await r.conversations.branch(id, 1, 'regenerate');
    expect(await turn(r, id, 'q1', 'a1 again')).toBe(true);
    const before = JSON.stringify(await r.conversations.require(id));
    await expect(r.conversations.rewindLast(id)).rejects.toThrow(/other versions/);
    expect(JSON.stringify(await r.conversations.require(id))).toBe(before);
  });

  it('dropUnsent brings the earlier version back and removes the empty one (and its stored value)', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 2);
    const original = shape(await r.conversations.require(id));
    const { before } = await r.conversations.branch(id, 1, 'edit');
    await r.conversations.dropUnsent(id, 1, before);
    const back = await r.conversations.require(id);
    expect(shape(back)).toEqual(original);
    expect(back.forks).toBeUndefined();
    // The stored versions' keys: `/b` right after the id (an id may itself start with b: failed ci23 on bf6d…).
    expect(r.t.vault.internal.keys(`conversation-log/${id}/b`).filter(isTailKey)).toEqual([]);
    expect(r.t.vault.internal.keys(`conversation-log/${id}/`).length).toBeGreaterThan(0);
  });
});

describe('versions at their limits', () => {
  const exchange = (c: StoredConversation, q: string): StoredConversation => ({
    ...c,
    messages: [...c.messages, { role: 'user', content: q }, { role: 'assistant', content: [{ type: 'text', text: `answer to ${q}` }] }],
    turnStarts: [...(c.turnStarts ?? []), c.messages.length],
    transcript: [...c.transcript, { role: 'user', text: q, at: 1 }, { role: 'assistant', text: `answer to ${q}`, at: 1, tools: [] }],
  });

  it(`a message keeps at most ${MAX_VERSIONS} versions: one more is refused and nothing changes`, async () => {
    rig = await chatRig();
    const store = rig.conversations;
    const id = (await store.create()).id;
    await store.update(id, (c) => exchange(c, 'v0'));
    for (let v = 1; v < MAX_VERSIONS; v++) {
      await store.branch(id, 0, v % 2 ? 'regenerate' : 'edit');
      await store.update(id, (c) => exchange(c, `v${v}`));
    }
    const before = JSON.stringify(await store.require(id));
    const stored = rig.t.vault.internal.keys(`conversation-log/${id}/b`).filter(isTailKey).length;
    await expect(store.branch(id, 0, 'regenerate')).rejects.toThrow(new RegExp(`already has ${MAX_VERSIONS} versions`));
    expect(JSON.stringify(await store.require(id))).toBe(before);
    expect(rig.t.vault.internal.keys(`conversation-log/${id}/b`).filter(isTailKey).length).toBe(stored);
    await store.showVersion(id, 0, 37);
    expect((await store.require(id)).transcript[0]?.text).toBe('v37');
  });

  it('a stored version gone from the vault is reported as damage when asked for, and changes nothing', async () => {
    rig = await chatRig();
    const store = rig.conversations;
    const id = await withExchanges(rig, 2);
    await store.branch(id, 1, 'edit');
    expect(await turn(rig, id, 'q1 edited', 'a1 edited')).toBe(true);
    const [gone] = rig.t.vault.internal.keys(`conversation-log/${id}/b`).filter(isTailKey);
    await rig.t.vault.internal.delete(gone!);
    const before = JSON.stringify(await store.require(id));
    await expect(store.showVersion(id, 1, 0)).rejects.toMatchObject({ code: 'DAMAGED', message: expect.stringMatching(/missing from the vault/) });
    expect(JSON.stringify(await store.require(id))).toBe(before);
    // The version shown still takes turns.
    expect(await turn(rig, id, 'q2', 'a2')).toBe(true);
  });
});

describe('versions of a temporary chat', () => {
  it('work in memory as in the vault, write nothing to it, and are forgotten on close', async () => {
    rig = await chatRig();
    const r = rig;
    const store = new TemporaryConversations();
    const id = await withExchanges(r, 2, store);
    const keysBefore = r.t.vault.internal.keys('');
    const original = shape(await store.require(id));
    const { message } = await store.branch(id, 0, 'regenerate');
    expect(await turn(r, id, message.text, 'a0 again', { store })).toBe(true);
    expect(sent(r.fake.requests.at(-1))).toEqual(['user: q0']);
    await store.showVersion(id, 0, 0);
    expect(shape(await store.require(id))).toEqual(original);
    await expect(store.rewindLast(id)).resolves.toBe('q1');
    await expect(store.showVersion(id, 0, 1)).resolves.toMatchObject({ transcript: [{ text: 'q0' }, { text: 'a0 again' }] });
    expect(r.t.vault.internal.keys('')).toEqual(keysBefore);
    store.delete(id);
    expect(store.has(id)).toBe(false);
    expect((store as unknown as { tailsById: Map<string, unknown> }).tailsById.size).toBe(0);
  });
});

describe('versions grouped by message, as the window shows them', () => {
  it('reads each stored version once while unlocked (a 1,000-exchange conversation with 9 edits took 1.6 s to open), and again after a lock', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 3);
    for (const at of [0, 1]) {
      await r.conversations.branch(id, at, 'edit');
      for (let i = at; i < 3; i++) expect(await turn(r, id, i === at ? `q${i} edited` : `q${i}`, `a${i}`)).toBe(true);
    }
    const reads = vi.spyOn(r.t.vault.internal, 'getJSON');
    const versionReads = () => reads.mock.calls.filter(([key]) => /\/b[0-9a-f]{16}$/.test(key)).length;
    const c = await r.conversations.require(id);
    const groups = [
      { entry: 0, shown: 1, count: 2, by: 'edit', groups: [0, 1] },
      { entry: 2, shown: 1, count: 2, by: 'edit', groups: [0, 1] },
    ];
    expect(await r.conversations.versionsShown(id, c)).toEqual(groups);
    expect(versionReads()).toBe(2);
    // Opened again (and by another Conversations, as each call of main's makes its own): nothing read again.
    expect(await new Conversations(r.t.vault).versionsShown(id, c)).toEqual(groups);
    expect(versionReads()).toBe(2);
    // A lock forgets what was remembered: after unlocking, the versions are read again.
    r.t.vault.lock();
    await r.t.vault.unlock(PASS);
    expect(await r.conversations.versionsShown(id, c)).toEqual(groups);
    expect(versionReads()).toBe(4);
  });

  it('regenerating twice then editing: the versions group as one edited message with three replies and the edit, read from the stored head as written before', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await withExchanges(r, 2);
    for (const answer of ['a0 again', 'a0 third']) {
      const { message } = await r.conversations.branch(id, 0, 'regenerate');
      expect(await turn(r, id, message.text, answer)).toBe(true);
    }
    await r.conversations.branch(id, 0, 'edit');
    expect(await turn(r, id, 'q0 edited', 'a0 edited')).toBe(true);
    const c = await r.conversations.require(id);
    // The head is as it always was: one fork, four versions.
    expect(versionsOf(c)).toEqual([{ entry: 0, shown: 3, count: 4, by: 'edit' }]);
    expect(await r.conversations.versionsShown(id, c)).toEqual([{ entry: 0, shown: 3, count: 4, by: 'edit', groups: [0, 0, 0, 1] }]);
    // Back to the original message: the last of its replies, with the edit still its own message version.
    const back = await r.conversations.showVersion(id, 0, 2);
    expect(back.transcript.map((e) => e.text)).toEqual(['q0', 'a0 third']);
    expect(await r.conversations.versionsShown(id, back)).toEqual([{ entry: 0, shown: 2, count: 4, by: 'edit', groups: [0, 0, 0, 1] }]);
    // A temporary chat groups the same way.
    const store = new TemporaryConversations();
    const tid = await withExchanges(r, 1, store);
    const { message } = await store.branch(tid, 0, 'regenerate');
    expect(await turn(r, tid, message.text, 'again', { store })).toBe(true);
    await store.branch(tid, 0, 'edit');
    expect(await turn(r, tid, 'other words', 'other', { store })).toBe(true);
    expect(await groupedVersionsOf(await store.require(tid), { get: async () => undefined })).toEqual([{ entry: 0, shown: 2, count: 3, by: 'edit', groups: [0, 1, 2] }]);
    expect(await store.versionsShown(tid, await store.require(tid))).toEqual([{ entry: 0, shown: 2, count: 3, by: 'edit', groups: [0, 0, 1] }]);
  });
});
