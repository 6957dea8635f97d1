import { afterEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { titleFrom } from '../../../electron/core/chat/conversation-values';
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

it('a rename made while Claude answers is kept when the reply is saved; a conversation deleted meanwhile stays deleted', async () => {
  rig = await chatRig();
  const c = await rig.conversations.create();
  rig.fake.script({ ...reply(text('A reply that takes a little while to arrive.')), delayMs: 10, chunk: 4 });
  let renamed: Promise<void> | undefined;
  await rig.turn(c.id, 'first words', { onEvent: (e) => void (e.type === 'text' && !renamed && (renamed = rig!.conversations.rename(c.id, 'My own title'))) });
  await renamed;
  const saved = await rig.conversations.get(c.id);
  expect(saved!.title).toBe('My own title');
  expect(saved!.transcript.map((e) => e.text)).toEqual(['first words', 'A reply that takes a little while to arrive.']);

  const d = await rig.conversations.create();
  rig.fake.script({ ...reply(text('Nobody will read this.')), delayMs: 10, chunk: 4 });
  let deleted: Promise<void> | undefined;
  await rig.turn(d.id, 'hello', { onEvent: (e) => void (e.type === 'text' && !deleted && (deleted = rig!.conversations.delete(d.id))) });
  await deleted;
  expect(await rig.conversations.get(d.id)).toBeUndefined();
  expect((await rig.conversations.list()).map((s) => s.id)).toEqual([c.id]);
});

it('concurrent changes to one conversation from separate handles are all kept', async () => {
  rig = await chatRig();
  const c = await rig.conversations.create();
  // The UI and a turn each hold their own Conversations object on the same vault.
  const handles = [0, 1, 2, 3, 4, 5].map(() => new Conversations(rig!.t.vault));
  await Promise.all([
    ...handles.map((h, i) => h.update(c.id, (conv) => ({ ...conv, transcript: [...conv.transcript, { role: 'user' as const, text: `note ${i}`, at: i }] }))),
    new Conversations(rig.t.vault).rename(c.id, 'Renamed meanwhile'),
  ]);
  const saved = await rig.conversations.get(c.id);
  expect(saved!.title).toBe('Renamed meanwhile');
  expect(saved!.transcript.map((e) => e.text).sort()).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4', 'note 5']);
  expect((await rig.conversations.list())[0]).toMatchObject({ title: 'Renamed meanwhile', messageCount: 6 });
});
