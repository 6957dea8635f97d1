import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { runTurn } from '../../../electron/core/chat/turn';
import { Vault } from '../../../electron/core/vault/vault';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../../fake-anthropic/server';
import { countingFs, FLOOR, PASS } from '../vault/helpers';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

async function rig(): Promise<{ vault: Vault; written: { bytes: number }; fake: FakeAnthropic; reopen: () => Promise<Vault>; turn: (id: string, text: string) => Promise<void> }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-storage-'));
  const dir = path.join(root, 'vault');
  const stateDir = path.join(root, 'state');
  const disk = countingFs();
  const fake = await startFakeAnthropic();
  const r = {
    vault: (await Vault.create(dir, PASS, { kdf: FLOOR, stateDir, fs: disk.fs })).vault,
    written: disk.written,
    fake,
    async reopen() {
      await r.vault.close();
      r.vault = await Vault.open(dir, { stateDir, fs: disk.fs });
      await r.vault.unlock(PASS);
      return r.vault;
    },
    async turn(id: string, userText: string) {
      await runTurn({ vault: r.vault, conversationId: id, userText, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL }, onEvent: () => undefined });
    },
  };
  cleanup.push(async () => {
    await fake.close();
    await r.vault.close();
    await fs.rm(root, { recursive: true, force: true });
  });
  return r;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const answer = (i: number) => `Answer ${i}. ${'A paragraph of a reply that is about as long as a real one, with an example or two. '.repeat(10)}`;

describe('conversation storage', () => {
  it('saving a turn writes no more bytes at turn 120 than at turn 10, and the long conversation reads back whole, taken-back turns included', async () => {
    const r = await rig();
    const c = await new Conversations(r.vault).create();
    const perTurn: number[] = [];
    for (let i = 0; i < 120; i++) {
      r.fake.script(reply(text(answer(i))));
      const before = r.written.bytes;
      await r.turn(c.id, `Question ${i}: tell me more about that.`);
      perTurn.push(r.written.bytes - before);
    }
    const early = median(perTurn.slice(5, 15));
    const late = median(perTurn.slice(110, 120));
    // A turn holds about 1 KB of text; rewriting the whole conversation each time would write ~100 KB by now.
    expect(late).toBeLessThanOrEqual(early * 1.25);
    const saved = await new Conversations(r.vault).get(c.id);
    expect(saved!.transcript).toHaveLength(240);
    expect(saved!.messages).toHaveLength(240);
    expect(saved!.transcript.at(-1)!.text).toBe(answer(119));
    expect(saved!.turnStarts).toEqual(Array.from({ length: 120 }, (_, i) => i * 2));
    expect(saved!.messages[63]).toEqual({ role: 'assistant', content: [{ type: 'text', text: answer(31) }] });
    // Reading back does not take one vault value per turn: full groups of turns are merged.
    expect(r.vault.internal.keys(`conversation-log/${c.id}/`).length).toBeLessThan(40);

    // Taking back turns across a group boundary, then more turns, reads back right after reopening.
    const conversations = new Conversations(r.vault);
    for (let i = 0; i < 25; i++) await conversations.rewindLast(c.id);
    r.fake.script(reply(text('After the rewind.')));
    await r.turn(c.id, 'New question');
    const back = await new Conversations(await r.reopen()).get(c.id);
    expect(back!.transcript).toHaveLength(192);
    expect(back!.transcript.slice(-3).map((e) => e.text)).toEqual([answer(94), 'New question', 'After the rewind.']);
    expect(back!.messages).toHaveLength(192);
    expect(back!.turnStarts).toEqual(Array.from({ length: 96 }, (_, i) => i * 2));
  });

  // 31 earlier turns: the lost save is the one that fills a group of 32; 32: the first save that reuses a group's slot.
  for (const before of [3, 31, 32]) {
    it(`a crash between a turn’s log record and the head loses only that turn, and the next save writes over the stray record (after ${before} turns)`, async () => {
      const r = await rig();
      const c = await new Conversations(r.vault).create();
      for (let i = 0; i < before; i++) {
        r.fake.script(reply(text(answer(i))));
        await r.turn(c.id, `Question ${i}`);
      }
      // The head write of the next save fails, as a power cut right after the record would leave it.
      let failHead = true;
      const internal = new Proxy(r.vault.internal, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === 'putJSON') return (key: string, v: unknown) => (failHead && key === `conversations/${c.id}` ? Promise.reject(new Error('power cut')) : target.putJSON(key, v));
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const crashing = new Proxy(r.vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) });
      const handle = new Conversations(crashing);
      const base = (await handle.get(c.id))!;
      const lost = { role: 'user' as const, text: 'never acknowledged', at: 1 };
      await expect(handle.update(c.id, (conv) => ({ ...conv, transcript: [...conv.transcript, lost] }), base)).rejects.toThrow(/power cut/);
      failHead = false;

      const v = await r.reopen();
      const after = await new Conversations(v).get(c.id);
      const expected = Array.from({ length: before }, (_, i) => [`Question ${i}`, answer(i)]).flat();
      expect(after!.transcript.map((e) => e.text)).toEqual(expected);
      r.fake.script(reply(text('Still here.')), reply(text('And here.')));
      await r.turn(c.id, 'Next question');
      await r.turn(c.id, 'One more');
      const again = await new Conversations(await r.reopen()).get(c.id);
      expect(again!.transcript.map((e) => e.text)).toEqual([...expected, 'Next question', 'Still here.', 'One more', 'And here.']);
      expect(again!.messages).toHaveLength(expected.length + 4);
      expect(again!.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'And here.' }] });
    });
  }

  it('a conversation stored whole by an earlier version still opens, takes new turns and can be taken back', async () => {
    const r = await rig();
    const id = '0123456789abcdef';
    const legacy = {
      id,
      title: 'Old one',
      created: 1,
      updated: 2,
      messages: [
        { role: 'user', content: 'Hello from before' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] },
      ],
      transcript: [
        { role: 'user', text: 'Hello from before', at: 1 },
        { role: 'assistant', text: 'Hi!', at: 2, tools: [] },
      ],
      turnStarts: [0],
    };
    await r.vault.internal.putJSON(`conversations/${id}`, legacy);
    const conversations = new Conversations(r.vault);
    expect(await conversations.get(id)).toEqual(legacy);
    expect(await conversations.list()).toEqual([{ id, title: 'Old one', created: 1, updated: 2, messageCount: 2 }]);
    r.fake.script(reply(text('Welcome back.')));
    await r.turn(id, 'Again');
    expect(r.fake.requests.at(-1)!.body.messages.slice(0, 2)).toEqual(legacy.messages);
    const v = await r.reopen();
    const reopened = new Conversations(v);
    expect((await reopened.get(id))!.transcript.map((e) => e.text)).toEqual(['Hello from before', 'Hi!', 'Again', 'Welcome back.']);
    expect(await reopened.rewindLast(id)).toBe('Again');
    expect(await new Conversations(await r.reopen()).get(id)).toMatchObject({ title: 'Old one', messages: legacy.messages, transcript: legacy.transcript, turnStarts: [0] });
  });

  it('deleting a conversation removes its whole log from the vault', async () => {
    const r = await rig();
    const conversations = new Conversations(r.vault);
    const keep = await conversations.create();
    const gone = await conversations.create();
    for (const c of [keep, gone]) {
      r.fake.script(reply(text('one')), reply(text('two')));
      await r.turn(c.id, 'first');
      await r.turn(c.id, 'second');
    }
    await conversations.delete(gone.id);
    expect(r.vault.internal.keys('conversation-log/').every((k) => k.startsWith(`conversation-log/${keep.id}/`))).toBe(true);
    expect(r.vault.internal.keys('conversation-log/').length).toBeGreaterThan(0);
    expect((await conversations.get(keep.id))!.transcript.map((e) => e.text)).toEqual(['first', 'one', 'second', 'two']);
  });
});
