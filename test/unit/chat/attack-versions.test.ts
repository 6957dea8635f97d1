/**
 * Hostile tests of conversation versions (branches.ts, conversations.ts): what
 * a damaged or foreign head, a lock in the middle, or crafted ids do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { runTurn } from '../../../electron/core/chat/turn';
import { reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function turn(r: ChatRig, id: string, words: string, answer: string): Promise<boolean> {
  r.fake.script(reply(text(answer)));
  return runTurn({ vault: r.t.vault, conversationId: id, userText: words, env: r.env, onEvent: () => undefined });
}

describe('versions grouped for the window, from a head whose version name is not one this app writes', () => {
  it('opens with that version counted as a message version of its own, as an unreadable one is, instead of failing to open', async () => {
    rig = await chatRig();
    const r = rig;
    const id = (await r.conversations.create()).id;
    expect(await turn(r, id, 'q0', 'a0')).toBe(true);
    await r.conversations.branch(id, 0, 'edit');
    expect(await turn(r, id, 'q0 edited', 'a0 edited')).toBe(true);
    // A head as another computer (a later app version, or a damaged copy) might write it: one version named otherwise.
    const head = (await r.t.vault.internal.getJSON<{ meta: { forks: Array<{ versions: Array<string | null> }> } }>(`conversations/${id}`))!;
    head.meta.forks[0]!.versions[0] = 'not-a-version-name';
    await r.t.vault.internal.putJSON(`conversations/${id}`, head);
    const c = await new Conversations(r.t.vault).require(id);
    await expect(new Conversations(r.t.vault).versionsShown(id, c)).resolves.toEqual([{ entry: 0, shown: 1, count: 2, by: 'edit', groups: [0, 1] }]);
  });
});
