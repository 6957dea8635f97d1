/** An MCP client as a writer: kept in the IPC contract, shown in History, the tree and the review list, and counted for review. */
import { describe, expect, it } from 'vitest';
import { cleanClientName, MAX_CLIENT_NAME } from '../../../electron/core/mcp/protocol';
import { needsReview } from '../../../electron/core/review/rules';
import { Provenance, ReviewEntry } from '../../../electron/shared/ipc';
import { describeWriter, writerBadge } from '../../../renderer/features/memories/provenance';
import { reviewWords } from '../../../renderer/features/memories/ReviewCount';

const mcp = (client: string) => ({ kind: 'mcp' as const, client });

describe('MCP provenance', () => {
  it('crosses the IPC contract with its client name, up to the longest name kept, emoji included', () => {
    const longest = cleanClientName('🙂'.repeat(200));
    expect([...longest]).toHaveLength(MAX_CLIENT_NAME);
    expect(Provenance.parse(mcp(longest))).toEqual(mcp(longest));
    expect(Provenance.safeParse({ kind: 'mcp' }).success).toBe(false);
    expect(Provenance.safeParse(mcp('x'.repeat(129))).success).toBe(false);
    expect(ReviewEntry.parse({ path: '/memories/a.md', kind: 'new', version: 1, by: mcp('Cursor') }).by).toEqual(mcp('Cursor'));
  });

  it('drops unpaired surrogates from a client name, so what is shown is what the vault keeps', () => {
    const name = cleanClientName('Evil\ud800 App\udfff');
    expect(name).toBe('Evil App');
    expect(/[\ud800-\udfff]/.test(name)).toBe(false);
  });

  it('counts for review, like Claude and the CLI', () => {
    expect(needsReview(mcp('Claude Code'))).toBe(true);
    expect(needsReview({ kind: 'user' })).toBe(false);
  });

  it('reads as the client with (MCP) in History, the review list and the tree', () => {
    expect(describeWriter(mcp('Claude Code'), new Map())).toBe('Claude Code (MCP)');
    expect(reviewWords({ path: '/memories/a.md', kind: 'changed', version: 2, by: mcp('Cursor') })).toBe('changed by Cursor (MCP), not reviewed');
    expect(writerBadge(mcp('Claude Code'))).toEqual({ text: 'Claude Code (MCP)', tone: 'mcp', who: 'Claude Code (MCP)' });
  });

  it('keeps the tree badge short for a long name, and the whole name for the description', () => {
    const name = 'A very long MCP client name indeed';
    const badge = writerBadge(mcp(name))!;
    expect(badge.text).toBe('A very long MCP cli… (MCP)');
    expect(badge.who).toBe(`${name} (MCP)`);
  });

  it('leaves the other writers as they were', () => {
    expect(writerBadge({ kind: 'claude' })).toEqual({ text: 'Claude', tone: 'claude', who: 'Claude' });
    expect(writerBadge({ kind: 'restore', fromVersion: 2 })?.who).toBe('you');
    expect(writerBadge({ kind: 'cli' })).toBeUndefined();
  });
});
