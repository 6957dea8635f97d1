import { afterEach, expect, it } from 'vitest';
import { Conversations, titleFrom } from '../../../electron/core/chat/conversations';
import { memoryCall, reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

it('conversations are listed newest first, renamed, searched and deleted, and survive lock and reopen', async () => {
  rig = await chatRig();
  const a = await rig.conversations.create();
  const b = await rig.conversations.create();
  rig.fake.script(reply(text('Paris is the capital of France.')), reply(text('Use a sourdough starter.')));
  await rig.turn(a.id, 'What is the capital of France?');
  await rig.turn(b.id, 'How do I bake bread?');
  expect((await rig.conversations.list()).map((c) => [c.title, c.messageCount])).toEqual([
    ['How do I bake bread?', 2],
    ['What is the capital of France?', 2],
  ]);
  await rig.conversations.rename(a.id, '  Geography  ');
  expect((await rig.conversations.search('SOURDOUGH')).map((h) => h.id)).toEqual([b.id]);
  expect((await rig.conversations.search('geography')).map((h) => h.id)).toEqual([a.id]);
  expect((await rig.conversations.search('sourdough'))[0]!.snippet).toContain('sourdough starter');
  rig.t.vault.lock();
  await expect(rig.conversations.list()).rejects.toThrow(/locked/);
  const v = await rig.t.reopen();
  const again = new Conversations(v);
  await again.delete(b.id);
  expect((await again.list()).map((c) => c.title)).toEqual(['Geography']);
  expect((await again.get(a.id))!.transcript.map((e) => e.text)).toEqual(['What is the capital of France?', 'Paris is the capital of France.']);
  // The memory tool cannot see any of it.
  expect(v.memory.list('/memories', Infinity)).toEqual([]);
  await expect(again.rename(a.id, '   ')).rejects.toThrow(/title/);
  await expect(again.get('../settings')).rejects.toThrow();
});

it('titles come from the first line of the first message, cut at a word', () => {
  expect(titleFrom('\n  Plan my trip to Kyoto\nwith details')).toBe('Plan my trip to Kyoto');
  const long = titleFrom('I would like to talk about the history of the printing press in early modern Europe please');
  expect(long.length).toBeLessThanOrEqual(61);
  expect(long.endsWith('…')).toBe(true);
});

it('taking back the last exchange removes it from what Claude sees next, and gives the text back', async () => {
  rig = await chatRig();
  const c = await rig.conversations.create();
  rig.fake.script(reply(text('Answer one.')), reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('Answer two.')));
  await rig.turn(c.id, 'Question one');
  await rig.turn(c.id, 'Question two, with a typo');
  expect(await rig.conversations.rewindLast(c.id)).toBe('Question two, with a typo');
  const after = await rig.conversations.get(c.id);
  expect(after!.transcript.map((e) => e.text)).toEqual(['Question one', 'Answer one.']);
  rig.fake.script(reply(text('Answer two, again.')));
  await rig.turn(c.id, 'Question two');
  expect(rig.fake.requests.at(-1)!.body.messages).toEqual([
    { role: 'user', content: 'Question one' },
    { role: 'assistant', content: [{ type: 'text', text: 'Answer one.' }] },
    { role: 'user', content: 'Question two' },
  ]);
  await rig.conversations.rewindLast(c.id);
  await rig.conversations.rewindLast(c.id);
  await expect(rig.conversations.rewindLast(c.id)).rejects.toThrow(/no message to take back/);
  expect((await rig.conversations.get(c.id))!.messages).toEqual([]);
});
