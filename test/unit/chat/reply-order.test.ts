/** A reply keeps the order Claude produced it in: text blocks and memory calls, as streamed and as saved. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { memoryCall, reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig;
beforeEach(async () => {
  rig = await chatRig();
});
afterEach(async () => {
  await rig.close();
});

it('the saved reply lists its text blocks and memory calls in the order Claude produced them, each text block on its own', async () => {
  const c = await rig.conversations.create();
  rig.fake.script(reply(text('Let me check my memory first.'), memoryCall({ command: 'view', path: '/memories' }, 'toolu_order1')), reply(text('Got it.'), text('A second block.')));
  await rig.turn(c.id, 'What do you remember?');
  const saved = (await rig.conversations.require(c.id)).transcript.at(-1)!;
  expect(saved.role).toBe('assistant');
  expect(saved.role === 'assistant' && saved.tools[0]!.id).not.toBe('toolu_order1');
  expect(saved.role === 'assistant' && saved.parts).toEqual([
    { type: 'text', text: 'Let me check my memory first.' },
    // The call's id is main's own, the same one its record in the reply carries; never the server's.
    { type: 'tool', id: saved.role === 'assistant' ? saved.tools[0]!.id : '' },
    { type: 'text', text: 'Got it.' },
    { type: 'text', text: 'A second block.' },
  ]);
});

it('each streamed text block begins with a delta marked as its start, so the window keeps blocks apart', async () => {
  const c = await rig.conversations.create();
  rig.fake.script({ ...reply(text('First block.'), text('Second block.')), chunk: 5 });
  const events = await rig.turn(c.id, 'Two blocks, please.');
  const texts = events.filter((e) => e.type === 'text');
  const starts = texts.flatMap((e, i) => (e.type === 'text' && e.start ? [i] : []));
  expect(starts.length).toBe(2);
  const second = texts.slice(starts[1]).map((e) => (e.type === 'text' ? e.delta : '')).join('');
  expect(second).toBe('Second block.');
});
