/**
 * Projects and temporary chats through real turns: the real SDK against
 * test/fake-anthropic, with the memory tool on a real vault.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../../electron/core/chat/turn';
import { TEMPORARY_MESSAGE, TemporaryConversations } from '../../../electron/core/chat/temporary';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
import type { ChatEvent } from '../../../electron/shared/chat';
import { memoryCall, reply, resultText, text, toolResults } from '../../fake-anthropic/server';
import { chatRig, textOf, toolEnds, type ChatRig } from '../chat/helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const lastResults = (r: ChatRig) => toolResults(r.fake.requests.at(-1)!).map((b) => ({ content: resultText(b.content), is_error: b.is_error === true }));

describe('a chat turn in a project', () => {
  it('Claude sees only its conversation project\'s memories, both ways', async () => {
    rig = await chatRig();
    const work = await new Projects(rig.t.vault).create('Work');
    const inWork = await rig.conversations.create({ project: work.id });
    const inFirst = await rig.conversations.create();

    rig.fake.script(reply(memoryCall({ command: 'create', path: '/memories/work.md', file_text: 'deadline friday' })), reply(text('Noted.')));
    await rig.turn(inWork.id, 'Remember the deadline.');
    rig.fake.script(reply(memoryCall({ command: 'create', path: '/memories/home.md', file_text: 'cat is called Tom' })), reply(text('Noted.')));
    await rig.turn(inFirst.id, 'Remember my cat.');

    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' }), memoryCall({ command: 'view', path: '/memories/home.md' })), reply(text('ok')));
    await rig.turn(inWork.id, 'What do you know?');
    const [workListing, workPeek] = lastResults(rig);
    expect(workListing!.content).toContain('/memories/work.md');
    expect(workListing!.content).not.toContain('home.md');
    expect(workPeek).toEqual({ content: 'Error: The path /memories/home.md does not exist. Please provide a valid path.', is_error: true });

    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' }), memoryCall({ command: 'view', path: '/memories/work.md' })), reply(text('ok')));
    await rig.turn(inFirst.id, 'What do you know?');
    const [firstListing, firstPeek] = lastResults(rig);
    expect(firstListing!.content).toContain('/memories/home.md');
    expect(firstListing!.content).not.toContain('work.md');
    expect(firstListing!.content).not.toContain('mnemo-projects');
    expect(firstPeek!.is_error).toBe(true);

    // The tool records shown in the chat name the project's paths, not the vault's.
    expect((await rig.conversations.require(inWork.id)).transcript.flatMap((e) => (e.role === 'assistant' ? e.tools.map((r) => r.path) : []))).toEqual(['/memories/work.md', '/memories', '/memories/home.md']);
    expect((await rig.conversations.list()).find((c) => c.id === inWork.id)?.project).toBe(work.id);
  });
});

describe('a conversation whose project was deleted', () => {
  it('says so and sends nothing, and continues once the project is restored', async () => {
    rig = await chatRig();
    const projects = new Projects(rig.t.vault);
    const p = await projects.create('Gone');
    const c = await rig.conversations.create({ project: p.id });
    await projects.delete(p.id);
    const events = await rig.turn(c.id, 'Still there?');
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringMatching(/project was deleted.*Restore the project/) });
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'error' });
    expect(rig.fake.requests).toHaveLength(0);
    await projects.restore(p.id);
    rig.fake.script(reply(text('Back.')));
    expect(textOf(await rig.turn(c.id, 'Still there?'))).toBe('Back.');
  });
});

describe('a temporary chat', () => {
  async function temporaryTurn(r: ChatRig, store: TemporaryConversations, id: string, message: string): Promise<ChatEvent[]> {
    const events: ChatEvent[] = [];
    await runTurn({ vault: r.t.vault, conversationId: id, userText: message, env: r.env, conversations: store, backoffCapMs: 5, onEvent: (e) => events.push(e) });
    return events;
  }

  it('every memory write answers is_error and changes nothing; view still works', async () => {
    rig = await chatRig();
    await rig.t.vault.memory.writeFile('/memories/known.md', 'likes tea', { mode: 'create', source: 'user' });
    const store = new TemporaryConversations();
    const c = store.create();
    rig.fake.script(
      reply(
        memoryCall({ command: 'view', path: '/memories/known.md' }),
        memoryCall({ command: 'create', path: '/memories/new.md', file_text: 'x' }),
        memoryCall({ command: 'str_replace', path: '/memories/known.md', old_str: 'tea', new_str: 'coffee' }),
        memoryCall({ command: 'insert', path: '/memories/known.md', insert_line: 0, insert_text: 'x' }),
        memoryCall({ command: 'delete', path: '/memories/known.md' }),
        memoryCall({ command: 'rename', old_path: '/memories/known.md', new_path: '/memories/moved.md' }),
      ),
      reply(text('I will not remember this.')),
    );
    const events = await temporaryTurn(rig, store, c.id, 'Forget this later.');
    const results = lastResults(rig);
    expect(results[0]!.is_error).toBe(false);
    expect(results[0]!.content).toContain('likes tea');
    for (const r of results.slice(1)) expect(r).toEqual({ content: `Error: ${TEMPORARY_MESSAGE}`, is_error: true });
    expect(toolEnds(events).map((e) => e.isError)).toEqual([false, true, true, true, true, true]);
    expect(rig.t.vault.memory.list('/memories', Infinity).map((e) => e.path)).toEqual(['/memories/known.md']);
    expect(await rig.t.vault.memory.readFile('/memories/known.md')).toBe('likes tea');
  });

  it('is never written to the vault, and is gone after a reopen', async () => {
    rig = await chatRig();
    const keysBefore = rig.t.vault.internal.keys('');
    const store = new TemporaryConversations();
    const c = store.create();
    rig.fake.script(reply(text('Hello.')));
    await temporaryTurn(rig, store, c.id, 'A secret plan');
    expect((await store.require(c.id)).transcript.map((e) => e.text)).toEqual(['A secret plan', 'Hello.']);
    expect(rig.t.vault.internal.keys('')).toEqual(keysBefore);
    expect(await rig.conversations.list()).toEqual([]);
    store.clear();
    await expect(store.require(c.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a temporary chat in a project reads that project\'s memory', async () => {
    rig = await chatRig();
    const p = await new Projects(rig.t.vault).create('P');
    await (await new Projects(rig.t.vault).memoryVault(p.id)).memory.writeFile('/memories/p.md', 'project fact', { mode: 'create', source: 'user' });
    await (await new Projects(rig.t.vault).memoryVault(FIRST_PROJECT_ID)).memory.writeFile('/memories/d.md', 'default fact', { mode: 'create', source: 'user' });
    const store = new TemporaryConversations();
    const c = store.create(p.id);
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('ok')));
    await temporaryTurn(rig, store, c.id, 'What do you know?');
    const [listing] = lastResults(rig);
    expect(listing!.content).toContain('/memories/p.md');
    expect(listing!.content).not.toContain('d.md');
  });
});
