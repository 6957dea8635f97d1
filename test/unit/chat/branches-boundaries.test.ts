/**
 * Versions never cut inside an exchange: whatever a conversation holds (early
 * exchanges stored before turn starts were kept, a refused reply whose
 * message is left out of the API history, a Continue that adds a reply
 * without a message), setting exchange `j` aside leaves exactly exchanges
 * 0..j-1, in the transcript, the API history and the turn starts alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { StoredConversation } from '../../../electron/core/chat/conversations';
import { exchangeAt } from '../../../electron/core/chat/branches';
import { runTurn } from '../../../electron/core/chat/turn';
import { historyProblem, reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function turn(r: ChatRig, id: string, words: string, answer: ReturnType<typeof reply>): Promise<boolean> {
  r.fake.script(answer);
  return runTurn({ vault: r.t.vault, conversationId: id, userText: words, env: r.env, onEvent: () => undefined });
}

const shape = (c: StoredConversation) => ({ transcript: c.transcript, messages: c.messages, turnStarts: c.turnStarts ?? [] });

/**
 * A conversation as the app stores it after: two exchanges from before turn
 * starts were kept, a normal turn, a refused one, a turn stopped at the round
 * limit and carried on with Continue, and a last normal turn.
 */
async function mixed(r: ChatRig): Promise<string> {
  const id = (await r.conversations.create()).id;
  const legacy: BetaMessageParam[] = [
    { role: 'user', content: 'old 0' },
    { role: 'assistant', content: [{ type: 'text', text: 'old answer 0' }] },
    { role: 'user', content: 'old 1' },
    { role: 'assistant', content: [{ type: 'text', text: 'old answer 1' }] },
  ];
  await r.conversations.update(id, (c) => ({ ...c, messages: legacy, transcript: [0, 1].flatMap((i) => [{ role: 'user' as const, text: `old ${i}`, at: i }, { role: 'assistant' as const, text: `old answer ${i}`, at: i, tools: [] }]) }));
  expect(await turn(r, id, 'normal 2', reply(text('answer 2')))).toBe(true);
  expect(await turn(r, id, 'refused 3', { ...reply(text('I cannot help with that.')), stop_reason: 'refusal' })).toBe(true);
  expect(await turn(r, id, 'normal 4', reply(text('answer 4')))).toBe(true);
  // Exchange 5: stopped at the round limit with a tool call answered, then carried on by Continue (a reply without a message).
  await r.conversations.update(id, (c) => ({
    ...c,
    messages: [
      ...c.messages,
      { role: 'user', content: 'rounds 5' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r5', name: 'memory', input: { command: 'view', path: '/memories' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r5', content: 'Directory: /memories' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'continued 5' }] },
    ],
    turnStarts: [...(c.turnStarts ?? []), c.messages.length],
    transcript: [...c.transcript, { role: 'user', text: 'rounds 5', at: 5 }, { role: 'assistant', text: '', at: 5, tools: [] }, { role: 'assistant', text: 'continued 5', at: 5, tools: [] }],
  }));
  expect(await turn(r, id, 'normal 6', reply(text('answer 6')))).toBe(true);
  return id;
}

describe('where a version begins', () => {
  it('every exchange with a turn start is cut at its own beginning, in all three lists, and comes back whole', async () => {
    rig = await chatRig();
    const r = rig;
    const id = await mixed(r);
    const whole = await r.conversations.require(id);
    const users = whole.transcript.flatMap((e, i) => (e.role === 'user' ? [i] : []));
    expect(users.length).toBe(7);
    // The refused exchange's message is not in the API history, so it and the next begin at the same message.
    const starts = whole.turnStarts ?? [];
    expect(starts.length).toBe(5);
    expect(starts[1]).toBe(starts[2]);
    for (const at of [0, 1]) await expect(r.conversations.branch(id, at, 'edit')).rejects.toThrow(/earlier version of Mnemo/);
    for (let at = 2; at < 7; at++) {
      await r.conversations.branch(id, at, 'edit');
      const cut = await r.conversations.require(id);
      expect(cut.transcript).toEqual(whole.transcript.slice(0, users[at]));
      expect(cut.messages).toEqual(whole.messages.slice(0, starts[at - 2]));
      expect(cut.turnStarts ?? []).toEqual(starts.slice(0, at - 2));
      // Each exchange kept still maps to its own place.
      for (let k = 2; k < at; k++) expect(exchangeAt(cut, k)).toEqual({ entry: users[k], message: starts[k - 2] });
      // A new version sent here goes to Claude as a history the API accepts.
      expect(await turn(r, id, `new ${at}`, reply(text(`new answer ${at}`)))).toBe(true);
      expect(historyProblem(r.fake.requests.at(-1)!.body)).toBeUndefined();
      const made = await r.conversations.require(id);
      expect(exchangeAt(made, at)).toEqual({ entry: users[at], message: made.turnStarts!.at(-1) });
      await r.conversations.showVersion(id, at, 0);
      expect(shape(await r.conversations.require(id))).toEqual(shape(whole));
    }
  });
});

describe('a message sent after the round limit stopped a reply', () => {
  it("keeps the previous exchange's tool results when it is edited or regenerated (they share its message)", async () => {
    rig = await chatRig();
    const r = rig;
    const id = (await r.conversations.create()).id;
    // Exchange 0 stopped at the round limit: its last tool call ran and its result is in the history. The next
    // message was typed instead of Continue, so its words joined that result's message (withUserMessage).
    const result = { type: 'tool_result' as const, tool_use_id: 'toolu_lim', content: 'Directory: /memories\n- notes.md' };
    await r.conversations.update(id, (c) => ({
      ...c,
      messages: [
        { role: 'user', content: 'look around' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lim', name: 'memory', input: { command: 'view', path: '/memories' } }] },
        { role: 'user', content: [result, { type: 'text', text: 'and now?' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
      ],
      turnStarts: [0, 2],
      transcript: [
        { role: 'user', text: 'look around', at: 0 },
        { role: 'assistant', text: '', at: 0, tools: [], error: { code: 'max_rounds', message: 'round limit' } },
        { role: 'user', text: 'and now?', at: 1 },
        { role: 'assistant', text: 'first answer', at: 1, tools: [] },
      ],
    }));
    const whole = await r.conversations.require(id);
    const { message } = await r.conversations.branch(id, 1, 'regenerate');
    expect(await turn(r, id, message.text, reply(text('second answer')))).toBe(true);
    const sent = r.fake.requests.at(-1)!.body.messages;
    expect(historyProblem(r.fake.requests.at(-1)!.body)).toBeUndefined();
    // Claude is told what the view returned, not that the user stopped it.
    expect(sent[2]).toEqual({ role: 'user', content: [result, { type: 'text', text: 'and now?' }] });
    await r.conversations.showVersion(id, 1, 0);
    expect(shape(await r.conversations.require(id))).toEqual(shape(whole));
    await r.conversations.showVersion(id, 1, 1);
    const second = await r.conversations.require(id);
    expect(second.messages.slice(0, 2)).toEqual(whole.messages.slice(0, 2));
    expect(second.messages[2]).toMatchObject({ role: 'user', content: [result, { type: 'text', text: 'and now?' }] });
    expect(second.transcript.map((e) => e.text)).toEqual(['look around', '', 'and now?', 'second answer']);
  });
});
