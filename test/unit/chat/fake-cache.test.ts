import { describe, expect, it } from 'vitest';
import { estimateTokens, FakePromptCache } from '../../fake-anthropic/cache';

const body = (turns: string[], extra: Record<string, unknown> = {}) => ({
  system: 'You are Claude.',
  tools: [{ type: 'memory_20250818', name: 'memory' }],
  messages: turns.map((t, i) => ({ role: i % 2 ? 'assistant' : 'user', content: t })),
  ...extra,
});
const total = (b: ReturnType<typeof body>) => estimateTokens(['tool', b.tools[0]]) + estimateTokens(['system', { type: 'text', text: b.system }]) + b.messages.reduce((a, m, i) => a + estimateTokens([m.role, i, { type: 'text', text: m.content }]), 0);

describe('the fake server’s prompt cache', () => {
  it('bills every token as plain input when the request asks for no caching', () => {
    const cache = new FakePromptCache();
    const b = body(['hello']);
    expect(cache.bill(b)).toEqual({ input_tokens: total(b), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(cache.bill(b)).toEqual({ input_tokens: total(b), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('with automatic caching writes the whole prefix once, then reads what an earlier request wrote and writes only the new part', () => {
    const cache = new FakePromptCache();
    const first = body(['hello'], { cache_control: { type: 'ephemeral' } });
    expect(cache.bill(first)).toEqual({ input_tokens: 0, cache_creation_input_tokens: total(first), cache_read_input_tokens: 0 });
    const second = body(['hello', 'hi there', 'and now?'], { cache_control: { type: 'ephemeral' } });
    expect(cache.bill(second)).toEqual({ input_tokens: 0, cache_creation_input_tokens: total(second) - total(first), cache_read_input_tokens: total(first) });
  });

  it('writes nothing for a prefix below the minimum, and a block-level breakpoint caches only up to that block', () => {
    const small = new FakePromptCache(10_000);
    const b = body(['hello'], { cache_control: { type: 'ephemeral' } });
    expect(small.bill(b)).toEqual({ input_tokens: total(b), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

    const cache = new FakePromptCache();
    const marked = { ...body(['hello', 'hi']), system: [{ type: 'text', text: 'You are Claude.', cache_control: { type: 'ephemeral' } }] };
    const upToSystem = estimateTokens(['tool', marked.tools[0]]) + estimateTokens(['system', { type: 'text', text: 'You are Claude.' }]);
    const usage = cache.bill(marked);
    expect(usage.cache_creation_input_tokens).toBe(upToSystem);
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(cache.bill(marked).cache_read_input_tokens).toBe(upToSystem);
  });
});
