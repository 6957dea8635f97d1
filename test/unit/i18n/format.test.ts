/** Numbers, sizes, costs and dates follow the window's language through Intl. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatBytes, formatDayGroup, formatNumber, formatTokens, formatUSD } from '../../../renderer/lib/format';
import { startTestI18n } from './window-i18n';

beforeAll(() => startTestI18n('en'));
afterAll(() => startTestI18n('en'));

it('English: grouped numbers, dollars, 1024-based sizes, relative days', async () => {
  expect(formatNumber(1234567)).toBe('1,234,567');
  expect(formatTokens(200_000, true)).toBe('200K');
  expect(formatUSD(1.5)).toBe('$1.50');
  expect(formatUSD(0.0042)).toBe('$0.0042');
  expect(formatBytes(512)).toBe('512 bytes');
  expect(formatBytes(1536)).toBe('1.5 kB');
  const now = new Date(2026, 5, 15, 12).getTime();
  expect(formatDayGroup(now, now)).toBe('today');
  expect(formatDayGroup(now - 86_400_000, now)).toBe('yesterday');
  expect(formatDayGroup(new Date(2026, 2, 3).getTime(), now)).toBe('March');
  expect(formatDayGroup(new Date(2025, 2, 3).getTime(), now)).toBe('March 2025');
});

it('each shipped language writes them its own way, and the pseudo-locale as English', async () => {
  await startTestI18n('pt-BR');
  expect(formatNumber(1234567.5)).toBe('1.234.567,5');
  expect(formatUSD(1.5)).toMatch(/US\$\s1,50/);
  await startTestI18n('ja');
  const now = new Date(2026, 5, 15, 12).getTime();
  expect(formatDayGroup(now - 86_400_000, now)).toBe('昨日');
  expect(formatTokens(200_000, true)).toBe('20万');
  await startTestI18n('zh-CN');
  expect(formatDayGroup(now, now)).toBe('今天');
  await startTestI18n('en-XA');
  expect(formatNumber(1234567)).toBe('1,234,567');
});
