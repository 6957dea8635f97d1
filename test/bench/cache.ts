/**
 * `npm run bench:cache`: the input tokens a 20-turn conversation with memory
 * calls is billed for, with and without prompt caching, through the real turn
 * loop and `test/fake-anthropic`. The fake's token counts are an estimate (a
 * quarter of each block's JSON length) and its smallest cached prefix is 1,024
 * of those tokens, as the API's is for Sonnet; the ratio, not the absolute
 * count, is the figure to read. Prints a table, then one JSON line.
 */
import { runTurn } from '../../electron/core/chat/turn';
import { Conversations } from '../../electron/core/chat/conversations';
import { costUSD, type TokenCounts } from '../../electron/core/chat/pricing';
import { memoryCall, reply, startFakeAnthropic, text } from '../fake-anthropic/server';
import { tempVault } from '../unit/vault/helpers';

const TURNS = 20;
// The settings' default model.
const MODEL = 'claude-sonnet-4-6';
const sentence = (i: number) => `Point ${i}: the user cares about clear, short explanations with a worked example, and about tea. `;
const paragraph = (i: number, n: number) => Array.from({ length: n }, (_, k) => sentence(i * 10 + k)).join('');

interface Run {
  requests: number;
  inputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
  /** Input, cache writes and cache reads in input-token prices: input + 1.25 × writes + 0.1 × reads. */
  billedInputTokens: number;
  costUSD: number;
}

async function conversation(promptCaching: boolean): Promise<Run> {
  const t = await tempVault();
  const fake = await startFakeAnthropic({ cacheMinTokens: 1024 });
  try {
    const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL };
    const conv = await new Conversations(t.vault).create();
    const total: TokenCounts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    for (let i = 0; i < TURNS; i++) {
      // Every turn looks in memory, every other one also writes a note, then answers.
      fake.script(reply(text('Let me check what I know.'), memoryCall({ command: 'view', path: '/memories' })));
      if (i % 2 === 0) fake.script(reply(memoryCall({ command: 'create', path: `/memories/note-${i}.md`, file_text: paragraph(i, 3) })));
      fake.script(reply(text(paragraph(i, 6))));
      await runTurn({
        vault: t.vault,
        conversationId: conv.id,
        userText: `Question ${i}: ${paragraph(i, 2)}`,
        env,
        promptCaching,
        onEvent: (e) => {
          if (e.type === 'error') throw new Error(`turn ${i} failed: ${e.message}`);
          if (e.type !== 'usage') return;
          total.inputTokens += e.turn.inputTokens;
          total.outputTokens += e.turn.outputTokens;
          total.cacheReadTokens += e.turn.cacheReadTokens;
          total.cacheWriteTokens += e.turn.cacheWriteTokens;
        },
      });
    }
    return {
      requests: fake.requests.length,
      inputTokens: total.inputTokens,
      cacheWriteTokens: total.cacheWriteTokens,
      cacheReadTokens: total.cacheReadTokens,
      billedInputTokens: Math.round(total.inputTokens + 1.25 * total.cacheWriteTokens + 0.1 * total.cacheReadTokens),
      costUSD: costUSD(MODEL, total) ?? 0,
    };
  } finally {
    await fake.close();
    await t.cleanup();
  }
}

const without = await conversation(false);
const withCache = await conversation(true);
const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`${TURNS}-turn conversation with memory calls, ${withCache.requests} requests (fake server: estimated tokens, 1,024-token minimum prefix, ${MODEL} prices)`);
console.log(`${''.padEnd(16)}${pad('input', 9)}${pad('cache write', 13)}${pad('cache read', 12)}${pad('billed input', 14)}${pad('cost $', 10)}`);
for (const [name, r] of [['without caching', without], ['with caching', withCache]] as const) {
  console.log(`${name.padEnd(16)}${pad(r.inputTokens, 9)}${pad(r.cacheWriteTokens, 13)}${pad(r.cacheReadTokens, 12)}${pad(r.billedInputTokens, 14)}${pad(r.costUSD.toFixed(4), 10)}`);
}
const ratio = Math.round((withCache.billedInputTokens / without.billedInputTokens) * 100) / 100;
console.log(`billed input with caching / without: ${ratio}`);
console.log(JSON.stringify({ turns: TURNS, without, withCache, ratio }));
