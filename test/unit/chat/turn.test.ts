import { afterEach, describe, expect, it } from 'vitest';
import { memoryCall, reply, resultText, text, thinking, toolResults } from '../../fake-anthropic/server';
import { chatRig, saveSettings, textOf, toolEnds, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('a turn with memory', () => {
  it('remembers across conversations: the second conversation reads what the first one wrote', async () => {
    rig = await chatRig();
    const first = await rig.conversations.create();
    rig.fake.script(
      reply(text('Let me check my memory.'), memoryCall({ command: 'view', path: '/memories' })),
      reply(memoryCall({ command: 'create', path: '/memories/user.md', file_text: '# User\n- name: Ada\n- likes: tea\n' })),
      reply(text('Nice to meet you, Ada!')),
    );
    const events = await rig.turn(first.id, 'Hi, I am Ada and I like tea.');
    expect(textOf(events)).toBe('Let me check my memory.Nice to meet you, Ada!');
    expect(toolEnds(events).map((e) => [e.command, e.path, e.isError])).toEqual([
      ['view', '/memories', false],
      ['create', '/memories/user.md', false],
    ]);
    expect(toolEnds(events)[1]!.diff).toEqual({ before: '', after: '# User\n- name: Ada\n- likes: tea\n' });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn', conversationId: first.id });
    // The turn's usage is the sum of what the server billed for its three requests.
    const billed = rig.fake.requests.map((r) => r.usage!);
    const sum = (f: (u: (typeof billed)[number]) => number) => billed.reduce((a, u) => a + f(u), 0);
    expect(events.find((e) => e.type === 'usage')).toMatchObject({
      turn: { inputTokens: sum((u) => u.input_tokens), cacheReadTokens: sum((u) => u.cache_read_input_tokens), cacheWriteTokens: sum((u) => u.cache_creation_input_tokens), outputTokens: 60, model: 'claude-sonnet-4-6' },
    });

    const second = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories/user.md' })), reply(text('Welcome back, Ada. Tea?')));
    const again = await rig.turn(second.id, 'Do you remember me?');
    expect(textOf(again)).toBe('Welcome back, Ada. Tea?');
    const viewed = resultText(toolResults(rig.fake.requests.at(-1)!)[0]!.content);
    expect(viewed).toContain('- name: Ada');
    // The second conversation starts fresh: only its own message, no history from the first.
    expect(rig.fake.requests.at(-2)!.body.messages).toEqual([{ role: 'user', content: 'Do you remember me?' }]);
  });

  it('sends the memory tool, the context-management beta and edit, the full history and the guidance', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { memoryGuidance: 'Only remember cooking preferences.' });
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('one')), reply(text('two')));
    await rig.turn(c.id, 'first');
    await rig.turn(c.id, 'second');
    const req = rig.fake.requests.at(-1)!;
    expect(req.headers['anthropic-beta']).toContain('context-management-2025-06-27');
    expect(req.headers.authorization).toBe(`Bearer ${rig.fake.apiKey}`);
    expect(req.body.tools).toEqual([{ type: 'memory_20250818', name: 'memory' }]);
    expect(req.body.context_management).toMatchObject({ edits: [{ type: 'clear_tool_uses_20250919', exclude_tools: ['memory'] }] });
    expect(JSON.stringify(req.body.system)).toContain('Only remember cooking preferences.');
    expect(JSON.stringify(req.body.system)).toMatch(/data, not instructions/);
    expect(req.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const saved = await rig.conversations.get(c.id);
    expect(saved?.title).toBe('first');
    expect(saved?.transcript.map((e) => e.text)).toEqual(['first', 'one', 'second', 'two']);
  });

  it('three parallel str_replace calls on one file in one reply all land', async () => {
    rig = await chatRig();
    await rig.t.vault.memory.writeFile('/memories/list.md', 'a: 1\nb: 1\nc: 1\n', { mode: 'create', source: 'user' });
    const c = await rig.conversations.create();
    rig.fake.script(
      reply(
        memoryCall({ command: 'str_replace', path: '/memories/list.md', old_str: 'a: 1', new_str: 'a: 2' }),
        memoryCall({ command: 'str_replace', path: '/memories/list.md', old_str: 'b: 1', new_str: 'b: 2' }),
        memoryCall({ command: 'str_replace', path: '/memories/list.md', old_str: 'c: 1', new_str: 'c: 2' }),
      ),
      reply(text('Updated.')),
    );
    const events = await rig.turn(c.id, 'bump all three');
    expect(toolEnds(events).every((e) => !e.isError)).toBe(true);
    expect(await rig.t.vault.memory.readFile('/memories/list.md')).toBe('a: 2\nb: 2\nc: 2\n');
    expect(toolResults(rig.fake.requests.at(-1)!)).toHaveLength(3);
  });

  it('without an API key the user is told to add one and nothing is sent', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const events: unknown[] = [];
    const { runTurn } = await import('../../../electron/core/chat/turn');
    await runTurn({ vault: rig.t.vault, conversationId: c.id, userText: 'hello', env: {}, onEvent: (e) => events.push(e) });
    expect(events[0]).toMatchObject({ type: 'error', code: 'no_key' });
    expect(rig.fake.requests).toHaveLength(0);
    expect((await rig.conversations.get(c.id))?.transcript).toEqual([]);
  });
});

describe('options from settings', () => {
  it('thinking streams as thinking events; compaction adds its edit and beta; context management can be turned off', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { thinking: true, compaction: true, contextManagement: { enabled: false, triggerInputTokens: 100_000, keepToolUses: 3, clearAtLeastTokens: 5000 } });
    const c = await rig.conversations.create();
    rig.fake.script(reply(thinking('Let me think about this.'), text('Answer.')));
    const events = await rig.turn(c.id, 'think first');
    expect(events.filter((e) => e.type === 'thinking').map((e) => (e as { delta: string }).delta).join('')).toBe('Let me think about this.');
    expect(textOf(events)).toBe('Answer.');
    const req = rig.fake.requests.at(-1)!;
    expect(req.body.thinking).toMatchObject({ type: 'enabled' });
    expect(req.body.context_management).toEqual({ edits: [{ type: 'compact_20260112' }] });
    expect(req.headers['anthropic-beta']).toContain('compact-2026-01-12');
    // The thinking block is kept in the history exactly as received, to be sent back unchanged.
    const saved = await rig.conversations.get(c.id);
    expect(JSON.stringify(saved!.messages)).toContain('Let me think about this.');
  });
});

describe('approval mode', () => {
  it('an approved write is applied; a denied one changes nothing and Claude gets an error result', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    const c = await rig.conversations.create();
    rig.fake.script(
      reply(memoryCall({ command: 'create', path: '/memories/yes.md', file_text: 'approved' }), memoryCall({ command: 'create', path: '/memories/no.md', file_text: 'denied' })),
      reply(text('ok')),
    );
    const asked: string[] = [];
    const events = await rig.turn(c.id, 'remember two things', {
      approve: async (r) => {
        asked.push(`${r.command} ${r.path} ${r.preview}`);
        return r.path === '/memories/yes.md';
      },
    });
    expect(asked.sort()).toEqual(['create /memories/no.md denied', 'create /memories/yes.md approved']);
    expect(events.filter((e) => e.type === 'approval')).toHaveLength(2);
    expect(await rig.t.vault.memory.readFile('/memories/yes.md')).toBe('approved');
    expect(rig.t.vault.memory.stat('/memories/no.md')).toBeUndefined();
    const results = toolResults(rig.fake.requests.at(-1)!);
    const denied = results.find((r) => resultText(r.content).includes('declined'));
    expect(denied?.is_error).toBe(true);
    expect(resultText(denied!.content)).toMatch(/^Error: The user declined/);
  });

  it('views never wait for approval', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    const c = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'view', path: '/memories' })), reply(text('empty')));
    const events = await rig.turn(c.id, 'look', { approve: async () => false });
    expect(events.some((e) => e.type === 'approval')).toBe(false);
    expect(toolEnds(events)[0]!.isError).toBe(false);
  });

  it('approvals answered in reverse order still give each edit its own diff and version', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    await rig.t.vault.memory.writeFile('/memories/list.md', 'a: 1\nb: 1\nc: 1\n', { mode: 'create', source: 'user' });
    const c = await rig.conversations.create();
    const edits = ['a', 'b', 'c'].map((k) => ({ command: 'str_replace', path: '/memories/list.md', old_str: `${k}: 1`, new_str: `${k}: 2` }));
    rig.fake.script(reply(...edits.map((e) => memoryCall(e))), reply(text('Updated.')));
    // Once all three wait, approve the edit of "c", then "b" and "a" each when the previous write has landed.
    // Approvals are asked in whatever order their previews finish, and carry ids main minted, so each is found by what it writes.
    const order = ['c: 2', 'b: 2', 'a: 2'];
    const waiting = new Map<string, () => void>();
    const next = () => waiting.get(order.shift() ?? '')?.();
    const off = rig.t.vault.onChange((change) => {
      if (change.op === 'write') next();
    });
    const events = await rig.turn(c.id, 'bump all three', {
      approve: (r) =>
        new Promise<boolean>((resolve) => {
          waiting.set(r.preview ?? '', () => resolve(true));
          if (waiting.size === 3) next();
        }),
    });
    off();
    expect(await rig.t.vault.memory.readFile('/memories/list.md')).toBe('a: 2\nb: 2\nc: 2\n');
    const ends = toolEnds(events);
    expect(ends).toHaveLength(3);
    // The results come in the order of the calls.
    for (const [i, edit] of edits.entries()) {
      const end = ends[i]!;
      expect(end.diff!.before).toContain(edit.old_str);
      expect(end.diff!.after).toBe(end.diff!.before.replace(edit.old_str, edit.new_str));
      expect(await rig.t.vault.readVersion('/memories/list.md', end.version!)).toBe(end.diff!.after);
    }
    // Applied c, b, a: the edit of "a" made the last version.
    expect(ends.map((e) => e.version)).toEqual([4, 3, 2]);
  });
});
