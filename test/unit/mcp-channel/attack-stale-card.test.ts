/**
 * Second attack round: a card shows what a held change would do to the memory as it was when the change was
 * asked. If the memory changes before the user presses Allow (another app's change allowed first, the user's own
 * edit), the change must not be made on a file the card never showed: it is answered that the memory changed while
 * it waited, and nothing is written.
 */
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { CHANGED_WHILE_WAITING_MESSAGE } from '../../../electron/core/mcp/channel-service';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, type ChannelApp } from './rig';

const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};

describe('a card made stale by a change allowed before it', () => {
  it('create: the second app’s card says “new file”; allowed after the first app’s, it does not overwrite that file', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const a = (await app.connect({ client: 'Claude Desktop' }))!;
    const b = (await app.connect({ client: 'Cursor' }))!;
    const first = a.call({ command: 'create', path: '/memories/plan.md', file_text: 'the plan the user approved' });
    const second = b.call({ command: 'create', path: '/memories/plan.md', file_text: 'something else' });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(2));
    const [cardA, cardB] = [...pendingOf(app)].sort((x, y) => (x.client < y.client ? -1 : 1));
    // Both cards show a new file.
    expect(cardB!.change).toEqual({ diff: { before: '', after: 'something else' } });
    await app.call('channelDecide', { id: cardA!.id, allow: true });
    expect((await first).is_error).toBe(false);
    await app.call('channelDecide', { id: cardB!.id, allow: true });
    const answer = await second;
    expect(answer.is_error).toBe(true);
    expect(await app.vault().memory.readFile('/memories/plan.md')).toBe('the plan the user approved');
  });

  it('delete: the card shows the text it removes; the file rewritten meanwhile is not deleted', async () => {
    const app = await channelApp();
    await app.vault().memory.writeFile('/memories/notes.md', 'old scratch', { mode: 'create', source: 'user' });
    await saveSettings(app.vault(), { approvalMode: true });
    const b = (await app.connect({ client: 'Cursor' }))!;
    const answer = b.call({ command: 'delete', path: '/memories/notes.md' });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    expect(pendingOf(app)[0]!.change).toEqual({ removes: { files: ['/memories/notes.md'], text: 'old scratch' } });
    // The user rewrites the file while the card waits.
    await app.vault().memory.writeFile('/memories/notes.md', 'precious', { mode: 'update', source: 'user' });
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: true });
    expect(await answer).toEqual({ content: `Error: ${CHANGED_WHILE_WAITING_MESSAGE}`, is_error: true });
    expect(await app.vault().memory.readFile('/memories/notes.md')).toBe('precious');
  });
});
