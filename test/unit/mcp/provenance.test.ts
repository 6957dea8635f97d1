/** An MCP client as a writer: kept in the IPC contract, shown in History, the tree and the review list, and counted for review. */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanClientName, MAX_CLIENT_NAME } from '../../../electron/core/mcp/protocol';
import { needsReview } from '../../../electron/core/review/rules';
import { Provenance, ReviewEntry } from '../../../electron/shared/ipc-values';
import { Writer, writerBadge } from '../../../renderer/features/memories/provenance';
import { ReviewWords } from '../../../renderer/features/memories/ReviewCount';
import { startTestI18n } from '../i18n/window-i18n';

const mcp = (client: string) => ({ kind: 'mcp' as const, client });
/** A component's markup and its text as the window shows it (in English). */
const drawn = (el: Parameters<typeof renderToStaticMarkup>[0]) => {
  const html = renderToStaticMarkup(el);
  return { html, text: html.replace(/<[^>]+>/g, '') };
};

beforeAll(() => startTestI18n('en'));

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
    expect(drawn(createElement(Writer, { by: mcp('Claude Code'), titles: new Map() })).text).toBe('Claude Code (MCP)');
    const words = drawn(createElement(ReviewWords, { entry: { path: '/memories/a.md', kind: 'changed', version: 2, by: mcp('Cursor') }, form: 'state' }));
    expect(words.text).toBe('changed by Cursor (MCP), not reviewed');
    // The client's own name is isolated, so one in Arabic or Hebrew reads right to left without moving "(MCP)".
    expect(words.html).toContain('<bdi>Cursor</bdi> (MCP)');
    expect(writerBadge(mcp('Claude Code'))).toEqual({ tone: 'mcp', client: 'Claude Code', short: 'Claude Code' });
  });

  it('keeps the tree badge short for a long name, and the whole name for the description', () => {
    const name = 'A very long MCP client name indeed';
    const badge = writerBadge(mcp(name))!;
    expect(badge.short).toBe('A very long MCP cli…');
    expect(badge.client).toBe(name);
  });

  it('leaves the other writers as they were', () => {
    expect(writerBadge({ kind: 'claude' })).toEqual({ tone: 'claude' });
    expect(writerBadge({ kind: 'restore', fromVersion: 2 })?.tone).toBe('user');
    expect(writerBadge({ kind: 'cli' })).toBeUndefined();
  });
});
