import { beforeAll, expect, it } from 'vitest';
import { usageLine } from '../../../renderer/lib/usage';
import { startTestI18n } from '../i18n/window-i18n';

beforeAll(() => startTestI18n('en'));

it('a reply’s usage line counts cached input with the rest and says how much came from the cache', () => {
  const u = { model: 'claude-sonnet-4-5', inputTokens: 120, outputTokens: 45, cacheReadTokens: 9000, cacheWriteTokens: 800, costUSD: 0.0123 };
  expect(usageLine(u)).toBe('claude-sonnet-4-5 · 9,920 in (9,000 cached) / 45 out · $0.01');
  expect(usageLine({ ...u, cacheReadTokens: 0, cacheWriteTokens: 0, costUSD: null })).toBe('claude-sonnet-4-5 · 120 in / 45 out · price unknown');
});

it('the usage line follows the window’s language: its digits, separators and currency', async () => {
  const u = { model: 'claude-sonnet-4-5', inputTokens: 120, outputTokens: 45, cacheReadTokens: 9000, cacheWriteTokens: 800, costUSD: 1234.5 };
  try {
    await startTestI18n('pt-BR');
    expect(usageLine(u)).toMatch(/^claude-sonnet-4-5 · 9\.920 .*9\.000.* 45 .*US\$\s1\.234,50$/);
  } finally {
    await startTestI18n('en');
  }
});
