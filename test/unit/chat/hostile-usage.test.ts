import { afterEach, describe, expect, it } from 'vitest';
import { costUSD } from '../../../electron/core/chat/pricing';
import { Conversations } from '../../../electron/core/chat/conversations';
import { ChatEvent, TranscriptEntry } from '../../../electron/shared/chat';
import { reply, text, type FakeMessage } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A reply whose usage is whatever a broken or hostile server sends. */
const withUsage = (usage: Record<string, unknown>): FakeMessage => ({ ...reply(text('Hello.')), usage: usage as FakeMessage['usage'] });

const HOSTILE: Array<[string, Record<string, unknown>]> = [
  ['negative', { input_tokens: -1000, output_tokens: -5, cache_read_input_tokens: -1e6, cache_creation_input_tokens: -3 }],
  ['non-numeric', { input_tokens: '100', output_tokens: 'lots', cache_read_input_tokens: { n: 1 }, cache_creation_input_tokens: [7] }],
  ['huge', { input_tokens: 1e308, output_tokens: 1e308, cache_read_input_tokens: 1e308, cache_creation_input_tokens: 1e308 }],
  ['missing', {}],
  ['fractional', { input_tokens: 10.5, output_tokens: 3, cache_read_input_tokens: 0.1, cache_creation_input_tokens: 2 }],
];

describe('usage from a hostile or broken API server', () => {
  for (const [name, usage] of HOSTILE) {
    it(`${name} usage fields leave whole non-negative counts, a finite cost, a valid usage event and a conversation that opens`, async () => {
      rig = await chatRig();
      const c = await rig.conversations.create();
      rig.fake.script(withUsage(usage), reply(text('Second.')));
      const events = await rig.turn(c.id, 'hi');
      await rig.turn(c.id, 'again');
      // Every event crosses to the window through the IPC contract; one that fails it is dropped there.
      for (const e of events) expect(ChatEvent.safeParse(e).success, JSON.stringify(e)).toBe(true);
      // Read back from the vault, as opening the conversation does: every entry must pass the contract.
      const stored = await new Conversations(rig.t.vault).require(c.id);
      const back = JSON.parse(JSON.stringify(stored.transcript)) as unknown[];
      for (const e of back) expect(TranscriptEntry.safeParse(e).success, JSON.stringify(e)).toBe(true);
      let total = 0;
      for (const e of stored.transcript) {
        if (e.role !== 'assistant' || !e.usage) continue;
        for (const n of [e.usage.inputTokens, e.usage.outputTokens, e.usage.cacheReadTokens, e.usage.cacheWriteTokens]) {
          expect(Number.isSafeInteger(n) && n >= 0, String(n)).toBe(true);
        }
        if (e.usage.costUSD !== null) {
          expect(Number.isFinite(e.usage.costUSD) && e.usage.costUSD >= 0).toBe(true);
          total += e.usage.costUSD;
        }
      }
      expect(Number.isFinite(total) && total >= 0).toBe(true);
    });
  }

  it('the cost is never NaN, infinite or negative, whatever counts it is given', () => {
    for (const n of [NaN, Infinity, -Infinity, -1, 1e308]) {
      const cost = costUSD('claude-sonnet-4-5', { inputTokens: n, outputTokens: n, cacheReadTokens: n, cacheWriteTokens: n });
      expect(cost === null || (Number.isFinite(cost) && cost >= 0), String(cost)).toBe(true);
    }
  });
});
