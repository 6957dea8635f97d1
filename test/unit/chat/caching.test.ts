import { afterEach, describe, expect, it } from 'vitest';
import { costUSD } from '../../../electron/core/chat/pricing';
import type { ChatEvent } from '../../../electron/shared/chat';
import { memoryCall, reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const usageOf = (events: ChatEvent[]) => events.find((e): e is Extract<ChatEvent, { type: 'usage' }> => e.type === 'usage')!.turn;

describe('prompt caching', () => {
  it('every request of a turn, tool round trips included, asks for automatic prompt caching', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('Nothing stored yet.')));
    await rig.turn(c.id, 'What do you remember?');
    expect(rig.fake.requests).toHaveLength(2);
    for (const req of rig.fake.requests) expect(req.body.cache_control).toEqual({ type: 'ephemeral' });
  });

  it('a second turn reads the first turn’s history from the cache, and its usage says so', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('Nothing stored yet.')));
    const first = usageOf(await rig.turn(c.id, 'What do you remember?'));
    // The tool round trip already reads what the turn's first request wrote.
    expect(first.cacheWriteTokens).toBeGreaterThan(0);
    expect(first.cacheReadTokens).toBe(rig.fake.requests[1]!.usage!.cache_read_input_tokens);
    expect(first.cacheReadTokens).toBeGreaterThan(0);

    rig.fake.script(reply(text('Tea, noted.')));
    const second = usageOf(await rig.turn(c.id, 'I like tea.'));
    const billed = rig.fake.requests[2]!.usage!;
    // Everything the previous request sent (tools, system, history) is read, not paid again in full.
    const previous = rig.fake.requests[1]!.usage!;
    expect(billed.cache_read_input_tokens).toBe(previous.cache_read_input_tokens + previous.cache_creation_input_tokens + previous.input_tokens);
    expect(second).toMatchObject({ cacheReadTokens: billed.cache_read_input_tokens, cacheWriteTokens: billed.cache_creation_input_tokens, inputTokens: billed.input_tokens });
    expect(second.cacheReadTokens).toBeGreaterThan(second.inputTokens + second.cacheWriteTokens);
  });

  it('the cost counts cache writes at 1.25× and cache reads at 0.1× the input price', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('one')), reply(text('two')));
    await rig.turn(c.id, 'first');
    const usage = usageOf(await rig.turn(c.id, 'second'));
    expect(usage.cacheReadTokens).toBeGreaterThan(0);
    expect(usage.cacheWriteTokens).toBeGreaterThan(0);
    // Sonnet: $3 per million input tokens, $15 per million output tokens.
    const expected = (usage.inputTokens * 3 + usage.cacheWriteTokens * 3.75 + usage.cacheReadTokens * 0.3 + usage.outputTokens * 15) / 1e6;
    expect(usage.costUSD).toBeCloseTo(expected, 9);
    const saved = await rig.conversations.get(c.id);
    const last = saved?.transcript.at(-1);
    expect(last?.role === 'assistant' ? last.usage : undefined).toMatchObject({ cacheReadTokens: usage.cacheReadTokens, cacheWriteTokens: usage.cacheWriteTokens, costUSD: usage.costUSD });
  });

  it('prices a million cache-written and a million cache-read tokens as 1.25 and 0.1 million input tokens', () => {
    const counts = { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 1e6, cacheReadTokens: 1e6 };
    expect(costUSD('claude-sonnet-4-6', counts)).toBeCloseTo(3 * 1.25 + 3 * 0.1, 9);
    expect(costUSD('claude-opus-4-1', counts)).toBeCloseTo(15 * 1.25 + 15 * 0.1, 9);
  });
});
