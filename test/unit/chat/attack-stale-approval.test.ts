/**
 * The chat's own approval cards, attacked as the other apps' cards were (test/unit/mcp-channel/attack-stale-card):
 * a card shows what Claude's change does to the memory as it is when the card is made. If the memory changes
 * before the user presses Allow (the user's own edit in the editor, another app's change), the Allow must not
 * apply to text the card never showed: nothing is written, Claude is told the memory changed while it waited, and
 * the user is told why the change was not made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CHANGED_WHILE_WAITING_MESSAGE } from '../../../electron/core/mcp/channel-service';
import type { ApprovalRequest } from '../../../electron/core/chat/turn';
import { memoryCall, reply, resultText, text, toolResults } from '../../fake-anthropic/server';
import { chatRig, saveSettings, toolEnds, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Runs one turn of `call` in approval mode; while its card waits, `meanwhile` runs, then the user presses Allow. */
async function allowAfter(before: Record<string, string>, call: Record<string, unknown>, meanwhile: (r: ApprovalRequest) => Promise<void>) {
  rig = await chatRig();
  for (const [path, text] of Object.entries(before)) await rig.t.vault.memory.writeFile(path, text, { mode: 'create', source: 'user' });
  await saveSettings(rig.t.vault, { approvalMode: true });
  const c = await rig.conversations.create();
  rig.fake.script(reply(memoryCall(call)), reply(text('ok')));
  const cards: ApprovalRequest[] = [];
  const events = await rig.turn(c.id, 'go', {
    approve: async (r) => {
      cards.push(r);
      await meanwhile(r);
      return true;
    },
  });
  const result = toolResults(rig.fake.requests.at(-1)!)[0]!;
  return { cards, end: toolEnds(events)[0]!, result: { content: resultText(result.content), isError: result.is_error === true } };
}

const write = (path: string, text: string, mode: 'create' | 'update') => rig!.t.vault.memory.writeFile(path, text, { mode, source: 'user' });

describe('an Allow on a chat card whose memory changed while it waited', () => {
  it('delete: the card showed the old text; the file the user rewrote meanwhile is not deleted', async () => {
    const { cards, end, result } = await allowAfter({ '/memories/notes.md': 'old scratch' }, { command: 'delete', path: '/memories/notes.md' }, async () => {
      await write('/memories/notes.md', 'precious', 'update');
    });
    expect(cards[0]!.change).toEqual({ removes: { files: ['/memories/notes.md'], text: 'old scratch' } });
    expect(await rig!.t.vault.memory.readFile('/memories/notes.md')).toBe('precious');
    expect(result).toEqual({ content: `Error: ${CHANGED_WHILE_WAITING_MESSAGE}`, isError: true });
    // The user sees why the change they allowed was not made, in their language.
    expect(end).toMatchObject({ isError: true, reason: { key: 'errors:memory.changedWhileWaiting' } });
    expect(end.reason!.text).toMatch(/changed while/);
  });

  it('str_replace: the card showed one file; the text the user added meanwhile is not overwritten with it', async () => {
    const { cards, end, result } = await allowAfter({ '/memories/list.md': 'a: 1\nb: 1\n' }, { command: 'str_replace', path: '/memories/list.md', old_str: 'a: 1', new_str: 'a: 2' }, async () => {
      // The edit still matches: without the check, the Allow would write a file the card never showed.
      await write('/memories/list.md', 'a: 1\nb: 1\nkeep: this line\n', 'update');
    });
    expect(cards[0]!.change).toEqual({ diff: { before: 'a: 1\nb: 1\n', after: 'a: 2\nb: 1\n' } });
    expect(await rig!.t.vault.memory.readFile('/memories/list.md')).toBe('a: 1\nb: 1\nkeep: this line\n');
    expect(result).toEqual({ content: `Error: ${CHANGED_WHILE_WAITING_MESSAGE}`, isError: true });
    expect(end).toMatchObject({ isError: true, reason: { key: 'errors:memory.changedWhileWaiting' } });
  });

  it('a change to another file meanwhile does not stop it, and the normal answer is word for word the same', async () => {
    const { end, result } = await allowAfter({ '/memories/list.md': 'a: 1\nb: 1\n' }, { command: 'str_replace', path: '/memories/list.md', old_str: 'a: 1', new_str: 'a: 2' }, async () => {
      await write('/memories/other.md', 'elsewhere', 'create');
    });
    expect(await rig!.t.vault.memory.readFile('/memories/list.md')).toBe('a: 2\nb: 1\n');
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/^The memory file has been edited\. Here is the snippet showing the change/);
    expect(end.reason).toBeUndefined();
  });
});
