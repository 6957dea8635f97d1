/** Conversation titles named by a small model after the first exchange. */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanTitle, nameConversation, TITLE_MODEL, TITLE_SYSTEM } from '../../../electron/core/chat/auto-title';
import { runTurn } from '../../../electron/core/chat/turn';
import { TemporaryConversations } from '../../../electron/core/chat/temporary';
import { reply, text, memoryCall } from '../../fake-anthropic/server';
import { chatRig, saveSettings, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** One turn that resolves only once its title request has been answered and stored. */
async function turnWithTitle(r: ChatRig, conversationId: string, userText: string, conversations?: TemporaryConversations): Promise<string[]> {
  const titled: string[] = [];
  await runTurn({ vault: r.t.vault, conversationId, userText, env: r.env, maxRetries: 0, onEvent: () => undefined, onTitled: (t) => titled.push(t), awaitTitle: true, ...(conversations ? { conversations } : {}) });
  return titled;
}

describe('cleanTitle', () => {
  it('keeps plain words and strips what a model wraps a title in', () => {
    expect(cleanTitle('Tea preferences')).toBe('Tea preferences');
    expect(cleanTitle('"Tea preferences."')).toBe('Tea preferences');
    expect(cleanTitle('Title: **Tea** preferences')).toBe('Tea preferences');
    expect(cleanTitle('# Tea\npreferences')).toBe('Tea preferences');
    expect(cleanTitle('「お茶の好み」')).toBe('お茶の好み');
    expect(cleanTitle('标题：茶的偏好。')).toBe('茶的偏好');
  });

  it('removes bidi overrides, zero-width and control characters, and cuts a long answer at a word', () => {
    expect(cleanTitle('Tea\u202e preferences\u200b\u0007')).toBe('Tea preferences');
    const long = cleanTitle('word '.repeat(100))!;
    expect(long.length).toBeLessThanOrEqual(81);
    expect(long.endsWith('word…')).toBe(true);
    expect(cleanTitle('  "" ')).toBeUndefined();
    expect(cleanTitle('\u202e\u200b')).toBeUndefined();
  });
});

describe('naming a conversation after its first exchange', () => {
  it('asks the small model once with the title prompt and an excerpt of the exchange, and stores the cleaned answer', async () => {
    rig = await chatRig();
    rig.fake.extra.titleReply = '"Ada likes tea."';
    const c = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('Nice to meet you, Ada!')));
    const titled = await turnWithTitle(rig, c.id, `Hi, I am Ada and I like tea. ${'x'.repeat(5000)}`);
    expect(titled).toEqual(['Ada likes tea']);
    expect((await rig.conversations.get(c.id))!.title).toBe('Ada likes tea');
    expect(rig.fake.extra.titleRequests).toHaveLength(1);
    const asked = rig.fake.extra.titleRequests[0]! as { model: string; system: string; max_tokens: number; messages: Array<{ content: string }> };
    expect(asked.model).toBe(TITLE_MODEL);
    expect(asked.system).toBe(TITLE_SYSTEM);
    expect(asked.max_tokens).toBeLessThanOrEqual(64);
    expect(asked.messages[0]!.content).toContain('Nice to meet you, Ada!');
    expect(asked.messages[0]!.content.length).toBeLessThan(4500);
    // The title request took no scripted turn and is not among the conversation's requests.
    expect(rig.fake.requests).toHaveLength(2);
    expect(rig.fake.remaining()).toBe(0);

    // The second exchange asks nothing.
    rig.fake.script(reply(text('Tea it is.')));
    expect(await turnWithTitle(rig, c.id, 'Any tea?')).toEqual([]);
    expect(rig.fake.extra.titleRequests).toHaveLength(1);
  });

  it('asks nothing when the setting is off, for a temporary chat, or for a conversation the user named before sending', async () => {
    rig = await chatRig();
    rig.fake.extra.titleReply = 'Should not be used';
    await saveSettings(rig.t.vault, { autoTitle: false });
    const off = await rig.conversations.create();
    rig.fake.script(reply(text('one')));
    expect(await turnWithTitle(rig, off.id, 'hello there')).toEqual([]);
    expect((await rig.conversations.get(off.id))!.title).toBe('hello there');

    await saveSettings(rig.t.vault, { autoTitle: true });
    const temporary = new TemporaryConversations();
    const temp = temporary.create();
    rig.fake.script(reply(text('two')));
    expect(await turnWithTitle(rig, temp.id, 'a temporary hello', temporary)).toEqual([]);

    const named = await rig.conversations.create();
    await rig.conversations.rename(named.id, 'My own name');
    rig.fake.script(reply(text('three')));
    expect(await turnWithTitle(rig, named.id, 'hello again')).toEqual([]);
    expect((await rig.conversations.get(named.id))!.title).toBe('My own name');
    expect(rig.fake.extra.titleRequests).toHaveLength(0);
  });

  it('keeps the first message as the title when the request fails or the answer is empty, and says nothing in the chat', async () => {
    rig = await chatRig();
    rig.fake.extra.titleReply = () => ({ status: 500, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'boom' } }) });
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('Hello.')));
    const events = await rig.turn(c.id, 'first words');
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(await turnWithTitle(rig, (await rig.conversations.create()).id, 'second words').catch(() => ['threw'])).toEqual([]);
    expect((await rig.conversations.get(c.id))!.title).toBe('first words');
  });

  it('never overwrites a title that changed while the small model was answering', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    await rig.conversations.rename(c.id, 'Renamed meanwhile');
    const client = { messages: { create: async () => ({ content: [{ type: 'text', text: 'Model title' }] }) } } as unknown as Parameters<typeof nameConversation>[0]['client'];
    expect(await nameConversation({ client, conversations: rig.conversations, conversationId: c.id, expected: 'first words', userText: 'u', replyText: 'r' })).toBeUndefined();
    expect((await rig.conversations.get(c.id))!.title).toBe('Renamed meanwhile');
    expect(await nameConversation({ client, conversations: rig.conversations, conversationId: c.id, expected: 'Renamed meanwhile', userText: 'u', replyText: 'r' })).toBe('Model title');
  });
});
