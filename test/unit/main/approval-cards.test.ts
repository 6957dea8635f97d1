/** Approval cards show what a held change does, computed in main from the memory as it is now. */
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
async function held(input: Record<string, unknown>, seed: Record<string, string> = {}): Promise<Approval> {
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

it('a str_replace card carries the diff of the whole file', async () => {
  const a = await held({ command: 'str_replace', path: '/memories/a.md', old_str: 'blue', new_str: 'green' }, { '/memories/a.md': 'line one\nfavourite: blue\nline three' });
  expect(a.change?.diff).toEqual({ before: 'line one\nfavourite: blue\nline three', after: 'line one\nfavourite: green\nline three' });
});

it('an insert card carries the diff with the line where it goes', async () => {
  const a = await held({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'new line\n' }, { '/memories/a.md': 'first\nsecond' });
  expect(a.change?.diff).toEqual({ before: 'first\nsecond', after: 'first\nnew line\nsecond' });
});

it('a rename card names the old and the new path', async () => {
  const a = await held({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' }, { '/memories/a.md': 'x' });
  expect(a).toMatchObject({ command: 'rename', path: '/memories/a.md', newPath: '/memories/b.md' });
});

it('a delete card shows the text of the file it removes', async () => {
  const a = await held({ command: 'delete', path: '/memories/a.md' }, { '/memories/a.md': 'Everything about the user' });
  expect(a.change?.removes).toEqual({ files: ['/memories/a.md'], text: 'Everything about the user' });
});

it('a delete card on a folder lists every file it removes', async () => {
  const a = await held({ command: 'delete', path: '/memories/dir' }, { '/memories/dir/one.md': '1', '/memories/dir/sub/two.md': '2' });
  expect(a.change?.removes).toEqual({ files: ['/memories/dir/one.md', '/memories/dir/sub/two.md'] });
});

// A hostile tool call: the card must show what the tool will really do, whatever spelling of the path it uses.
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
