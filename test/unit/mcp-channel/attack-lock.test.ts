/**
 * Second attack round: a lock while a change from another app is on its way to the user. The board is ended
 * (lockAll) when the lock begins, and main waits for the call being served before the keys go (up to 10 s): a
 * change that reaches the board in that gap must not show a card the user can still Allow while the vault locks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as ApprovalChange from '../../../electron/core/chat/approval-change';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { LOCKED_WHILE_WAITING_MESSAGE } from '../../../electron/core/mcp/channel-service';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { channelApp, PASS, type ChannelApp } from './rig';

/** describeChange held at a gate the test opens: the call sits between reading its settings and asking the user. */
const gate = vi.hoisted(() => ({ reached: undefined as undefined | (() => void), open: undefined as undefined | Promise<void> }));
vi.mock('../../../electron/core/chat/approval-change', async (importOriginal) => {
  const real = await importOriginal<typeof ApprovalChange>();
  return {
    ...real,
    describeChange: async (...args: Parameters<typeof real.describeChange>) => {
      gate.reached?.();
      if (gate.open) await gate.open;
      return real.describeChange(...args);
    },
  };
});
afterEach(() => {
  gate.reached = undefined;
  gate.open = undefined;
});

const pendingOf = (app: ChannelApp): OutsideApproval[] => {
  const last = app.events.filter((e) => e.event === 'channelApprovals').at(-1);
  return (last?.payload as { pending: OutsideApproval[] } | undefined)?.pending ?? [];
};

describe('a lock that begins while a change is on its way to the user', () => {
  it('shows no card for it, makes no change, and answers that the lock came first', async () => {
    const app = await channelApp();
    await saveSettings(app.vault(), { approvalMode: true });
    const backend = (await app.connect({ client: 'Cursor' }))!;
    let open!: () => void;
    gate.open = new Promise<void>((resolve) => (open = resolve));
    const reached = new Promise<void>((resolve) => (gate.reached = resolve));
    const answer = backend.call({ command: 'create', path: '/memories/late.md', file_text: 'written while locking' });
    await reached;
    // The lock begins: main ends every waiting change, then waits for the call being served.
    const locking = app.call('vaultLock');
    await new Promise((resolve) => setTimeout(resolve, 50));
    open();
    // The change reaches the board after the lock began; give it a moment to show up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const shown = pendingOf(app);
    // Had a card shown, the user could Allow it while the vault locks: press Allow on whatever is there.
    for (const card of shown) await app.call('channelDecide', { id: card.id, allow: true });
    expect(await answer).toEqual({ content: `Error: ${LOCKED_WHILE_WAITING_MESSAGE}`, is_error: true });
    expect(shown).toEqual([]);
    await locking;
    // Unlocked again, the channel serves and a change waits for the user as before.
    expect((await app.call('vaultUnlock', { passphrase: PASS })).ok).toBe(true);
    await app.channel.start();
    const again = (await app.connect({ client: 'Cursor' }))!;
    const next = again.call({ command: 'create', path: '/memories/next.md', file_text: 'after the unlock' });
    await vi.waitFor(() => expect(pendingOf(app)).toHaveLength(1));
    await app.call('channelDecide', { id: pendingOf(app)[0]!.id, allow: true });
    expect(await next).toEqual({ content: 'File created successfully at: /memories/next.md', is_error: false });
  });
});
