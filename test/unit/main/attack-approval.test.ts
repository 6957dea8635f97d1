/** A hostile tool call against the approval card: the card must show what the tool will really do, whatever spelling of the path it uses. */
import { afterEach, expect, it } from 'vitest';
import type { ChatEvent } from '../../../electron/shared/chat';
import { memoryCall, reply, text } from '../../fake-anthropic/server';
import { chatRig, saveSettings, type ChatRig } from '../chat/helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

type Approval = Extract<ChatEvent, { type: 'approval' }>;

/** Runs one turn in approval mode where Claude makes `input`; the user approves; returns the approval event. */
async function held(input: Record<string, unknown>, seed: Record<string, string>): Promise<Approval> {
  rig = await chatRig();
  await saveSettings(rig.t.vault, { approvalMode: true });
  for (const [p, body] of Object.entries(seed)) await rig.t.vault.memory.writeFile(p, body, { mode: 'create', source: 'user' });
  const c = await rig.conversations.create();
  rig.fake.script(reply(memoryCall(input)), reply(text('Done.')));
  const events = await rig.turn(c.id, 'Go.', { approve: async () => true });
  const a = events.find((e): e is Approval => e.type === 'approval');
  if (!a) throw new Error('no approval event');
  return a;
}

it('a delete card spelled with a trailing slash still lists every file the delete removes', async () => {
  const a = await held({ command: 'delete', path: '/memories/dir/' }, { '/memories/dir/one.md': '1', '/memories/dir/sub/two.md': '2' });
  // The tool removed the folder: the card must have said so.
  expect(rig!.t.vault.memory.stat('/memories/dir')).toBeUndefined();
  expect(a.change?.removes).toEqual({ files: ['/memories/dir/one.md', '/memories/dir/sub/two.md'] });
  expect(a.path).toBe('/memories/dir');
});

it('an edit card under a decomposed (NFD) spelling of an existing file still shows the diff of the edit', async () => {
  const nfc = '/memories/caf\u00e9.md';
  const nfd = '/memories/cafe\u0301.md';
  const a = await held({ command: 'str_replace', path: nfd, old_str: 'user', new_str: 'attacker' }, { [nfc]: 'Everything about the user' });
  expect(await rig!.t.vault.memory.readFile(nfc)).toBe('Everything about the attacker');
  expect(a.change?.diff).toEqual({ before: 'Everything about the user', after: 'Everything about the attacker' });
  expect(a.path).toBe(nfc);
});
