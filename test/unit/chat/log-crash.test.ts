/**
 * A power cut at every write of a conversation save. Each internal put is
 * atomic and durable on its own (the vault's crash tests prove that at every
 * file-system call), so the disk after a cut holds exactly the puts made before
 * it: here the k-th put or delete of a save fails, and the conversation is read
 * back from a fresh handle, as opening the app again would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';
import { cutAt, PowerCut } from './power-cut';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** The same vault as a new process would have it: a handle no store has seen. */
const restarted = (vault: VaultApi): VaultApi => new Proxy(vault, { get: (target, prop) => Reflect.get(target, prop, target) as unknown });

/** What a turn's save does: the exchange appended to the API history, the transcript and the turn starts. */
function exchange(i: number): (c: StoredConversation) => StoredConversation {
  return (c) => {
    const user: BetaMessageParam = { role: 'user', content: `Question ${i}` };
    const reply: BetaMessageParam = { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}` }] };
    return {
      ...c,
      updated: c.updated + 1,
      messages: [...c.messages, user, reply],
      turnStarts: [...(c.turnStarts ?? []), c.messages.length],
      transcript: [...c.transcript, { role: 'user', text: `Question ${i}`, at: i }, { role: 'assistant', text: `Answer ${i}`, at: i, tools: [] }],
    };
  };
}

/** The parts of a conversation a user sees or Claude is sent. */
const view = (c: StoredConversation | undefined) => (c ? { title: c.title, transcript: c.transcript.map((e) => e.text), messages: c.messages, turnStarts: c.turnStarts ?? [] } : undefined);

/**
 * Runs `op` with a power cut at its first write, then (as a restart and a
 * retry would) at its second, and so on until it completes or a cut comes
 * after its head: each time the conversation must open as `before` or as
 * `after`, and the listing must agree with what opens.
 */
async function everyCut(vault: VaultApi, id: string, op: (c: Conversations) => Promise<unknown>, after: ReturnType<typeof view>): Promise<{ points: number; problems: string[] }> {
  const before = view(await new Conversations(vault).get(id));
  const problems: string[] = [];
  for (let at = 0; ; at++) {
    let finished = false;
    try {
      await op(new Conversations(cutAt(vault, at).vault));
      finished = true;
    } catch (e) {
      if (!(e instanceof PowerCut)) throw e;
    }
    // The app after a restart: a vault object it has not used before.
    const fresh = new Conversations(restarted(vault));
    let now: ReturnType<typeof view>;
    try {
      now = view(await fresh.get(id));
    } catch (e) {
      problems.push(`cut at write ${at}: does not open (${(e as Error).message})`);
      return { points: at + 1, problems };
    }
    const same = (x: unknown) => JSON.stringify(now) === JSON.stringify(x);
    if (!same(before) && !same(after)) problems.push(`cut at write ${at}: opens as neither the state before nor after`);
    const listed = (await fresh.list()).find((s) => s.id === id);
    if (now && (!listed || listed.title !== now.title || listed.messageCount !== now.transcript.length)) {
      problems.push(`cut at write ${at}: listed as ${JSON.stringify(listed && { title: listed.title, messageCount: listed.messageCount })}, opens as ${JSON.stringify({ title: now.title, messageCount: now.transcript.length })}`);
    }
    if (!now && listed) problems.push(`cut at write ${at}: listed but gone`);
    if (finished || !same(before)) return { points: at + 1, problems };
  }
}

describe('a power cut at any write of a conversation save', () => {
  it('never loses an acknowledged turn, never shows a mixed or duplicated transcript, and the listing agrees with what opens (70 turns, rewinds, renames)', async () => {
    t = await tempVault();
    const vault = t.vault;
    const c = await new Conversations(vault).create();
    const problems: string[] = [];
    let points = 0;
    const note = (r: { points: number; problems: string[] }, what: string) => {
      points += r.points;
      problems.push(...r.problems.map((p) => `${what}: ${p}`));
    };
    for (let i = 0; i < 70; i++) {
      const change = exchange(i);
      const now = (await new Conversations(vault).get(c.id))!;
      note(await everyCut(vault, c.id, (h) => h.update(c.id, change), view(change(now))), `turn ${i}`);
      // Around the group boundaries, also take the last exchange back (and send it again) and rename.
      if (i % 32 === 31 || i % 32 === 0) {
        const cur = (await new Conversations(vault).get(c.id))!;
        const rewound = view({ ...cur, messages: cur.messages.slice(0, -2), transcript: cur.transcript.slice(0, -2), turnStarts: (cur.turnStarts ?? []).slice(0, -1) });
        note(await everyCut(vault, c.id, (h) => h.rewindLast(c.id), rewound), `rewind after turn ${i}`);
        if (JSON.stringify(view(await new Conversations(vault).get(c.id))) === JSON.stringify(rewound)) await new Conversations(vault).update(c.id, change);
        note(await everyCut(vault, c.id, (h) => h.rename(c.id, `Title ${i}`), { ...view(await new Conversations(vault).get(c.id))!, title: `Title ${i}` }), `rename after turn ${i}`);
      }
    }
    const back = view(await new Conversations(await t.reopen()).get(c.id))!;
    expect(back.transcript).toEqual(Array.from({ length: 70 }, (_, i) => [`Question ${i}`, `Answer ${i}`]).flat());
    expect(back.turnStarts).toEqual(Array.from({ length: 70 }, (_, i) => i * 2));
    expect(problems).toEqual([]);
    // Every write of 70 turns, 6 rewinds and 6 renames (237: three or four a save).
    expect(points).toBeGreaterThanOrEqual(237);
  });

  it('a delete cut at any write leaves the conversation whole or gone, never listed but unopenable, and what is left of its log goes at the next start', async () => {
    t = await tempVault();
    const vault = t.vault;
    const c = await new Conversations(vault).create();
    for (let i = 0; i < 40; i++) await new Conversations(vault).update(c.id, exchange(i));
    const r = await everyCut(vault, c.id, (h) => h.delete(c.id), undefined);
    expect(r.problems).toEqual([]);
    // The cut came after the head went, before its log did: the app started again (which lists conversations)
    // takes the deleted conversation's turns out of the vault, without another conversation having to be deleted.
    expect(await new Conversations(vault).get(c.id)).toBeUndefined();
    expect(await new Conversations(restarted(vault)).list()).toEqual([]);
    expect(vault.internal.keys('conversation-log/')).toEqual([]);
  });
});
