import { afterEach, expect, it } from 'vitest';
import { reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The user's words of each message of the API history that starts an exchange. */
const userWords = (messages: Array<{ role: string; content?: unknown }>, starts: number[]) =>
  starts.map((i) => {
    const m = messages[i]!;
    return typeof m.content === 'string' ? m.content : (m.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').at(-1)?.text;
  });

it('an exchange taken back while Claude answers the next message is gone from what Claude sees too, and the new exchange follows what is left', async () => {
  rig = await chatRig();
  const c = await rig.conversations.create();
  rig.fake.script(reply(text('one')), reply(text('two')));
  await rig.turn(c.id, 'first');
  await rig.turn(c.id, 'second');
  // "Edit last message" reaches the store while the next message is being answered (its rewind was already in flight).
  rig.fake.script({ ...reply(text('A reply that takes a little while to arrive.')), delayMs: 10, chunk: 4 }, reply(text('four')));
  let rewound: Promise<string> | undefined;
  await rig.turn(c.id, 'third', { onEvent: (e) => void (e.type === 'text' && !rewound && (rewound = rig!.conversations.rewindLast(c.id))) });
  expect(await rewound).toBe('second');

  const saved = (await rig.conversations.get(c.id))!;
  expect(saved.transcript.map((e) => e.text)).toEqual(['first', 'one', 'third', 'A reply that takes a little while to arrive.']);
  // What Claude is sent next agrees with the transcript: the taken-back exchange is not in it.
  expect(JSON.stringify(saved.messages)).not.toContain('second');
  expect(saved.messages).toHaveLength(4);
  expect(userWords(saved.messages, saved.turnStarts!)).toEqual(['first', 'third']);
  await rig.turn(c.id, 'fourth');
  expect(JSON.stringify(rig.fake.requests.at(-1)!.body.messages)).not.toContain('second');
  // Taking back the last exchange again takes back exactly it.
  expect(await rig.conversations.rewindLast(c.id)).toBe('fourth');
  expect(await rig.conversations.rewindLast(c.id)).toBe('third');
  const left = (await rig.conversations.get(c.id))!;
  expect(left.messages).toEqual([
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
  ]);
});
