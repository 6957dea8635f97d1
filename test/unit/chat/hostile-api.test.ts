/**
 * A hostile or broken API server against the real SDK's tool runner: tool_use
 * ids that repeat, tools that are not memory, a reply that never stops calling
 * tools, and a reply far longer than its max_tokens allows. None of them may
 * write what the user did not approve, run without end, or lose the user's message.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatEvent } from '../../../electron/shared/chat';
import { memoryCall, reply, text, toolResults, resultText, type FakeMessage } from '../../fake-anthropic/server';
import { STOPPED_RESULT } from '../../../electron/core/chat/history';
import { chatRig, errorOf, saveSettings, toolEnds, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

type Approval = Extract<ChatEvent, { type: 'approval' }>;

describe('tool_use ids from the server', () => {
  it.each([true, false])('a reply whose tool_use ids repeat is refused with nothing written (approval mode %s), and the next message works', async (approvalMode) => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode });
    const c = await rig.conversations.create();
    rig.fake.script(
      reply(memoryCall({ command: 'create', path: '/memories/benign.md', file_text: 'fine' }, 'toolu_same'), memoryCall({ command: 'create', path: '/memories/evil.md', file_text: 'evil' }, 'toolu_same')),
      reply(text('Done.')),
    );
    const asked: string[] = [];
    const events = await rig.turn(c.id, 'Note this.', { approve: async (r) => (asked.push(r.path), true) });
    expect(asked).toEqual([]);
    expect(events.some((e) => e.type === 'approval')).toBe(false);
    expect(rig.t.vault.memory.stat('/memories/benign.md')).toBeUndefined();
    expect(rig.t.vault.memory.stat('/memories/evil.md')).toBeUndefined();
    expect(rig.fake.requests).toHaveLength(1);
    expect(errorOf(events)).toMatchObject({ code: 'server', message: expect.stringMatching(/same id|repeat/i) });
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    // The user's message and the refusal stay in the transcript; the refused reply does not go back to the API.
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript).toMatchObject([
      { role: 'user', text: 'Note this.' },
      { role: 'assistant', error: { code: 'server' }, tools: [] },
    ]);
    rig.fake.script(reply(text('Hello again.')));
    const next = await rig.turn(c.id, 'Still there?');
    expect(errorOf(next)).toBeUndefined();
    expect(JSON.stringify(rig.fake.requests.at(-1)!.body.messages)).not.toContain('toolu_same');
  });

  it('approval cards carry ids main minted; approving one card writes exactly that change', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    const c = await rig.conversations.create();
    rig.fake.script(
      reply(memoryCall({ command: 'create', path: '/memories/benign.md', file_text: 'fine' }, 'toolu_a'), memoryCall({ command: 'create', path: '/memories/evil.md', file_text: 'evil' }, 'toolu_b')),
      reply(text('Done.')),
    );
    const cards: Approval[] = [];
    const events = await rig.turn(c.id, 'Note this.', {
      approve: async (r) => r.path === '/memories/benign.md',
      onEvent: (e) => e.type === 'approval' && cards.push(e),
    });
    expect(cards).toHaveLength(2);
    for (const card of cards) expect(['toolu_a', 'toolu_b']).not.toContain(card.id);
    expect(new Set(cards.map((x) => x.id)).size).toBe(2);
    expect(await rig.t.vault.memory.readFile('/memories/benign.md')).toBe('fine');
    expect(rig.t.vault.memory.stat('/memories/evil.md')).toBeUndefined();
    // The chips name the same minted ids as the cards.
    expect(toolEnds(events).map((e) => e.id).sort()).toEqual(cards.map((x) => x.id).sort());
  });

  it('a tool that is not memory gets an error result and shows no memory chip', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply({ type: 'tool_use', id: 'toolu_x', name: 'shell', input: { command: 'create', path: '/memories/fake.md', file_text: 'x' } }), reply(text('Ok.')));
    const events = await rig.turn(c.id, 'Go.');
    expect(events.filter((e) => e.type === 'tool_start' || e.type === 'tool_end')).toEqual([]);
    expect(rig.t.vault.memory.stat('/memories/fake.md')).toBeUndefined();
    const result = toolResults(rig.fake.requests[1]!)[0]!;
    expect(result).toMatchObject({ tool_use_id: 'toolu_x', is_error: true });
    expect(resultText(result.content)).toMatch(/shell/);
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript[1]).toMatchObject({ role: 'assistant', tools: [], text: 'Ok.' });
  });
});

describe('rounds of one turn', () => {
  it('stops a server that calls tools without end at the setting, keeps why in the transcript, and Continue runs the next rounds', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { maxToolRounds: 4 });
    const c = await rig.conversations.create();
    rig.fake.otherwise(() => reply(memoryCall({ command: 'view', path: '/memories' })));
    const events = await rig.turn(c.id, 'Loop forever.');
    expect(rig.fake.requests).toHaveLength(4);
    expect(errorOf(events)).toMatchObject({ code: 'max_rounds', message: expect.stringMatching(/4 rounds.*Continue/s) });
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'max_rounds' });
    let stored = await rig.conversations.require(c.id);
    expect(stored.transcript).toHaveLength(2);
    expect(stored.transcript[1]).toMatchObject({ role: 'assistant', error: { code: 'max_rounds' } });
    expect((stored.transcript[1] as { tools: unknown[] }).tools).toHaveLength(4);

    rig.fake.otherwise(undefined);
    rig.fake.script(reply(text('Finally done.')));
    const more = await rig.turn(c.id, '', { continueTurn: true });
    expect(errorOf(more)).toBeUndefined();
    // Continue sends the history as it was left: the fourth round's results, and no new user words.
    const last = rig.fake.requests.at(-1)!;
    expect(toolResults(last)).toHaveLength(1);
    expect(last.body.messages.filter((m) => m.role === 'user')).toHaveLength(5);
    stored = await rig.conversations.require(c.id);
    expect(stored.transcript.map((e) => e.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(stored.transcript[2]).toMatchObject({ text: 'Finally done.' });
  });

  /** The words of a refused message joined the last round's tool results: its turn starts in the exchange before. */
  const refusedAfterLimit = async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { maxToolRounds: 2 });
    const c = await rig.conversations.create();
    rig.fake.otherwise(() => reply(memoryCall({ command: 'view', path: '/memories' })));
    await rig.turn(c.id, 'Loop.');
    rig.fake.otherwise(undefined);
    // Not Continue: a new message, whose words join the last round's tool results in one user message, is refused.
    rig.fake.script({ ...reply(text('I cannot help with that.')), stop_reason: 'refusal' });
    await rig.turn(c.id, 'Something refused.');
    rig.fake.script(reply(text('Fine.')));
    await rig.turn(c.id, 'Something else.');
    const last = rig.fake.requests.at(-1)!;
    // The second round's call keeps its real result (with the new words after it), not a stand-in, and the refused words are gone.
    const results = toolResults(last);
    expect(results).toHaveLength(1);
    expect(resultText(results[0]!.content)).not.toBe(STOPPED_RESULT);
    expect(resultText(results[0]!.content)).toMatch(/directories up to 2 levels deep in \/memories/);
    expect(JSON.stringify(last.body.messages)).not.toContain('Something refused.');
  };

  it('a message refused right after the round limit stopped a reply keeps that reply’s tool results in what Claude is sent next', refusedAfterLimit);

  it('the same in a vault several computers write (format 2: the refused turn starts in the exchange before its own)', async () => {
    vi.stubEnv('MNEMO_FORMAT', '2');
    try {
      await refusedAfterLimit();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('Continue is refused when the last turn was not cut short by the round limit', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('Hi.')));
    await rig.turn(c.id, 'Hello.');
    const events = await rig.turn(c.id, '', { continueTurn: true });
    expect(errorOf(events)?.message).toMatch(/nothing to continue/i);
    expect(rig.fake.requests).toHaveLength(1);
  });
});

describe('a reply far longer than max_tokens allows', () => {
  const MAX_TOKENS = 1024;
  // What a reply may carry: 16 bytes a token and 64 KiB of slack (electron/core/chat/reply-limits.ts).
  const limit = MAX_TOKENS * 16 + 64 * 1024;
  it.each<[NonNullable<FakeMessage['flood']>['kind'], number]>([
    ['text', 4096],
    ['tool_input', 4096],
    ['thinking', 4096],
    ['text', 24 * 1024 * 1024],
  ])('a flood of %s (deltas of %i bytes) is cut and marked, what is kept is bounded, and the user message stays', async (kind, chunk) => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { maxTokens: MAX_TOKENS, thinking: kind === 'thinking' });
    const c = await rig.conversations.create();
    const flood = { kind, bytes: 200 * 1024 * 1024, chunk };
    rig.fake.script({ ...reply(text('Here it comes:')), flood });
    const heapBefore = process.memoryUsage().heapUsed;
    const events = await rig.turn(c.id, 'Say a lot.');
    // The client hung up long before the server was through.
    expect(flood.bytes).toBeGreaterThan(0);
    expect((flood as { sent?: number }).sent).toBeLessThan(chunk > 1024 * 1024 ? chunk + 1 : 16 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(150 * 1024 * 1024);
    expect(errorOf(events)).toMatchObject({ code: 'too_large', message: expect.stringMatching(/cut/i) });
    const stored = await rig.conversations.require(c.id);
    expect(stored.transcript[0]).toMatchObject({ role: 'user', text: 'Say a lot.' });
    expect(stored.transcript[1]).toMatchObject({ role: 'assistant', error: { code: 'too_large' } });
    expect(JSON.stringify(stored).length).toBeLessThan(4 * limit);
    expect(rig.t.vault.memory.stat('/memories/flood.md')).toBeUndefined();
    // The next message goes out with a history the API accepts.
    rig.fake.script(reply(text('Shorter.')));
    expect(errorOf(await rig.turn(c.id, 'Briefly?'))).toBeUndefined();
  });
});
