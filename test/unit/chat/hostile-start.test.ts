/**
 * A hostile server may put a block's whole content in its content_block_start
 * and send no deltas: the SDK keeps it as it came. The reply's limit must count
 * those bytes too, or a reply far past its max_tokens is kept (and its calls run).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryCall, reply, text, thinking, type FakeBlock } from '../../fake-anthropic/server';
import { chatRig, errorOf, saveSettings, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const MAX_TOKENS = 1024;
// What a reply may carry: 16 bytes a token and 64 KiB of slack (electron/core/chat/reply-limits.ts).
const LIMIT = MAX_TOKENS * 16 + 64 * 1024;
const BIG = 900 * 1024;

describe('a reply whose blocks come whole in content_block_start', () => {
  it.each<[string, FakeBlock[]]>([
    ['text', [text('x'.repeat(BIG))]],
    ['tool input', [memoryCall({ command: 'create', path: '/memories/big.md', file_text: 'y'.repeat(BIG) })]],
    ['thinking', [thinking('z'.repeat(BIG)), text('Short.')]],
    // Fewer calls than a reply may make, each under a memory file's limit, together past the reply's.
    ['many tool inputs', Array.from({ length: 90 }, (_, i) => memoryCall({ command: 'create', path: `/memories/n${i}.md`, file_text: 'a'.repeat(1000) }))],
  ])('%s far past max_tokens is cut, nothing of it runs, and the message stays', async (kind, blocks) => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { maxTokens: MAX_TOKENS, thinking: kind === 'thinking' });
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(...blocks), wholeInStart: true });
    const events = await rig.turn(c.id, 'Say a lot.');
    expect(errorOf(events)).toMatchObject({ code: 'too_large', message: expect.stringMatching(/cut/i) });
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript[0]).toMatchObject({ role: 'user', text: 'Say a lot.' });
    // Bounded by the limit: each call that arrived before the cut is kept as a chip with a "stopped" result, a few times its bytes.
    expect(JSON.stringify(stored).length).toBeLessThan(8 * LIMIT);
    expect(rig.t.vault.memory.stat('/memories/big.md')).toBeUndefined();
    expect(rig.t.vault.memory.stat('/memories/n0.md')).toBeUndefined();
    expect(rig.fake.requests).toHaveLength(1);
    rig.fake.script(reply(text('Shorter.')));
    expect(errorOf(await rig.turn(c.id, 'Briefly?'))).toBeUndefined();
  });
});

describe('a reply whose blocks come already in message_start', () => {
  it('runs none of its calls, shows none of it, and keeps the message', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(text('Hidden.'), memoryCall({ command: 'create', path: '/memories/unseen.md', file_text: 'never approved' })), inMessageStart: true }, reply(text('Done.')));
    const asked: string[] = [];
    const events = await rig.turn(c.id, 'Hello.', { approve: async (r) => (asked.push(r.path), true) });
    expect(rig.t.vault.memory.stat('/memories/unseen.md')).toBeUndefined();
    expect(errorOf(events)).toMatchObject({ code: 'server' });
    expect(rig.fake.requests).toHaveLength(1);
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript[0]).toMatchObject({ role: 'user', text: 'Hello.' });
    rig.fake.script(reply(text('Shorter.')));
    expect(errorOf(await rig.turn(c.id, 'Briefly?'))).toBeUndefined();
  });
});

describe('a reply with more tool calls than any real one makes', () => {
  it('is refused before any call runs, however small each call is, and the message stays', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    // Each call is tiny, so the whole reply stays well under its byte limit; only their number is hostile.
    const calls = Array.from({ length: 500 }, (_, i) => memoryCall({ command: 'create', path: `/memories/${i}.md`, file_text: 'a' }));
    rig.fake.script(reply(...calls), reply(text('Done.')));
    const events = await rig.turn(c.id, 'Note these.');
    expect(errorOf(events)).toMatchObject({ code: 'server', message: expect.stringMatching(/calls/i) });
    expect(rig.t.vault.memory.list('/memories', Infinity).filter((e) => e.kind === 'file')).toEqual([]);
    expect(rig.fake.requests).toHaveLength(1);
    // The refused reply leaves no chip in the transcript, nor a call in what the API is sent next.
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript).toMatchObject([
      { role: 'user', text: 'Note these.' },
      { role: 'assistant', error: { code: 'server' }, tools: [], parts: [] },
    ]);
    rig.fake.script(reply(text('Shorter.')));
    expect(errorOf(await rig.turn(c.id, 'Briefly?'))).toBeUndefined();
  });
});
