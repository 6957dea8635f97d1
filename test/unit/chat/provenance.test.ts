import { afterEach, expect, it } from 'vitest';
import { memoryCall, reply, text } from '../../fake-anthropic/server';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

it('versions Claude writes and memories Claude deletes name the conversation and the turn that did it', async () => {
  rig = await chatRig();
  const conv = await rig.conversations.create();
  rig.fake.script(reply(memoryCall({ command: 'create', path: '/memories/a.md', file_text: 'one\n' })), reply(text('Saved.')));
  await rig.turn(conv.id, 'Remember one.');
  rig.fake.script(
    reply(memoryCall({ command: 'str_replace', path: '/memories/a.md', old_str: 'one', new_str: 'two' })),
    reply(memoryCall({ command: 'create', path: '/memories/b.md', file_text: 'bee\n' })),
    reply(memoryCall({ command: 'delete', path: '/memories/b.md' })),
    reply(text('Done.')),
  );
  await rig.turn(conv.id, 'Change it to two.');
  const vault = rig.t.vault;
  expect(vault.versions('/memories/a.md').map((v) => v.by)).toEqual([
    { kind: 'claude', conversationId: conv.id, turn: 1 },
    { kind: 'claude', conversationId: conv.id, turn: 2 },
  ]);
  expect(vault.trash()).toMatchObject([{ path: '/memories/b.md', by: { kind: 'claude', conversationId: conv.id, turn: 2 } }]);
});
