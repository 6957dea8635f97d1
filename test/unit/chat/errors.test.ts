import { afterEach, describe, expect, it } from 'vitest';
import { apiError, memoryCall, reply, text, thinking, type FakeReply } from '../../fake-anthropic/server';
import type { ChatEvent } from '../../../electron/shared/chat';
import { chatRig, errorOf, saveSettings, textOf, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** After a failed turn the same conversation must take the next message normally. */
async function continuesAfterwards(r: ChatRig, id: string): Promise<void> {
  r.fake.script(reply(text('Back again.')));
  const events = await r.turn(id, 'are you there?');
  expect(errorOf(events)).toBeUndefined();
  expect(textOf(events)).toBe('Back again.');
  const roles = r.fake.requests.at(-1)!.body.messages.map((m) => m.role);
  // Strictly alternating roles, starting with the user: a history the API accepts.
  roles.forEach((role, i) => expect(role).toBe(i % 2 ? 'assistant' : 'user'));
}

const cases: Array<[string, FakeReply[], ChatEvent['type'] extends never ? never : string, RegExp]> = [
  ['a refused key (401)', [apiError(401, 'authentication_error', 'invalid x-api-key')], 'auth', /API key was refused/],
  ['a forbidden model (403)', [apiError(403, 'permission_error', 'no access')], 'permission', /403/],
  ['rate limiting that outlasts the retries (429)', [1, 2, 3].map(() => apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '0' })), 'rate_limited', /Rate limited.*try again now/],
  ['an overloaded API (529)', [1, 2, 3].map(() => apiError(529, 'overloaded_error', 'Overloaded')), 'overloaded', /overloaded.*Retry in a minute/],
  ['a request too large (413)', [apiError(413, 'request_too_large', 'Request exceeds the maximum size')], 'too_large', /too long/],
  ['a context window exceeded (400)', [apiError(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum')], 'too_large', /too long/],
  ['a server error (500)', [1, 2, 3].map(() => apiError(500, 'api_error', 'Internal server error')), 'server', /internal error/],
  ['an unknown model (404)', [apiError(404, 'not_found_error', 'model: claude-nope')], 'unknown', /Check the model name/],
];

describe('API errors are shown as what the user can do, and the conversation survives', () => {
  for (const [name, replies, code, message] of cases) {
    it(`${name}`, async () => {
      rig = await chatRig();
      const c = await rig.conversations.create();
      rig.fake.script(...replies);
      const events = await rig.turn(c.id, 'hello');
      const err = errorOf(events);
      expect(err).toMatchObject({ code });
      expect(err!.message).toMatch(message);
      expect(err!.message).toMatch(/still in the box/);
      expect(JSON.stringify(events)).not.toContain(rig.fake.apiKey);
      expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'error' });
      expect((await rig.conversations.get(c.id))!.transcript).toEqual([]);
      await continuesAfterwards(rig, c.id);
    });
  }

  it('a 429 with retry-after is retried and then answered, and the user is told about the wait', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '1' }), reply(text('Answered after waiting.')));
    const events = await rig.turn(c.id, 'hello');
    expect(events.find((e) => e.type === 'retrying')).toEqual({ type: 'retrying', attempt: 1, inSeconds: 1, reason: 'rate_limited' });
    expect(errorOf(events)).toBeUndefined();
    expect(textOf(events)).toBe('Answered after waiting.');
    expect(rig.fake.requests).toHaveLength(2);
  });

  it('a 429 asking for a long wait is not waited out: the user is told at once how long to wait', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '3600' }));
    const events = await rig.turn(c.id, 'hello');
    expect(events.some((e) => e.type === 'retrying')).toBe(false);
    expect(errorOf(events)).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 3600 });
    expect(errorOf(events)!.message).toMatch(/try again in 60 min/);
    expect(rig.fake.requests).toHaveLength(1);
    await continuesAfterwards(rig, c.id);
  });

  it('a 529 without retry-after is retried with backoff and then answered', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(apiError(529, 'overloaded_error', 'Overloaded'), apiError(529, 'overloaded_error', 'Overloaded'), reply(text('Here now.')));
    const events = await rig.turn(c.id, 'hello');
    expect(events.filter((e) => e.type === 'retrying').map((e) => e.type === 'retrying' && [e.attempt, e.reason])).toEqual([
      [1, 'overloaded'],
      [2, 'overloaded'],
    ]);
    expect(errorOf(events)).toBeUndefined();
    expect(textOf(events)).toBe('Here now.');
    expect(rig.fake.requests).toHaveLength(3);
  });

  it('the network being down is reported as such', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    await rig.fake.close();
    const events = await rig.turn(c.id, 'hello', { maxRetries: 0 });
    expect(errorOf(events)).toMatchObject({ code: 'network' });
    expect((await rig.conversations.get(c.id))!.transcript).toEqual([]);
  });

  it('a stream cut off in the middle keeps the partial reply and the next turn works', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(text('This reply will be cut off somewhere in the middle.')), dropAfterEvents: 6 });
    const events = await rig.turn(c.id, 'hello', { maxRetries: 0 });
    expect(errorOf(events)?.code).toBe('network');
    expect(textOf(events).length).toBeGreaterThan(0);
    const saved = await rig.conversations.get(c.id);
    expect(saved!.transcript.map((e) => e.role)).toEqual(['user', 'assistant']);
    await continuesAfterwards(rig, c.id);
  });

  it('a malformed stream is an error, not a crash', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(text('garbled')), malformedAfterEvents: 3 });
    const events = await rig.turn(c.id, 'hello', { maxRetries: 0 });
    expect(errorOf(events)).toBeDefined();
    expect(events.at(-1)?.type).toBe('done');
    await continuesAfterwards(rig, c.id);
  });

  it('max_tokens and refusal are saved and explained', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(text('A very long answer that')), stop_reason: 'max_tokens' }, { ...reply(text('')), stop_reason: 'refusal' });
    expect(errorOf(await rig.turn(c.id, 'write a novel'))).toMatchObject({ code: 'max_tokens' });
    expect(errorOf(await rig.turn(c.id, 'something bad'))).toMatchObject({ code: 'refusal' });
    expect((await rig.conversations.get(c.id))!.transcript).toHaveLength(4);
    await continuesAfterwards(rig, c.id);
    // The refused exchange is left out of what Claude sees next; the cut-off answer stays.
    const sent = JSON.stringify(rig.fake.requests.at(-1)!.body.messages);
    expect(sent).not.toContain('something bad');
    expect(sent).toContain('A very long answer that');
  });
});

describe('stopping a turn', () => {
  it('stop mid-stream keeps the partial reply marked as stopped; the next turn works', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script({ ...reply(text('A slow reply that the user stops before it ends.')), delayMs: 30, chunk: 2 });
    const controller = new AbortController();
    let seen = 0;
    const events = await rig.turn(c.id, 'hello', { signal: controller.signal, onEvent: (e) => e.type === 'text' && ++seen === 3 && controller.abort() });
    expect(errorOf(events)?.code).toBe('cancelled');
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'cancelled' });
    const saved = await rig.conversations.get(c.id);
    const reply1 = saved!.transcript[1]!;
    expect(reply1).toMatchObject({ role: 'assistant', stopped: true });
    expect(reply1.text.length).toBeGreaterThan(0);
    expect(reply1.text.length).toBeLessThan('A slow reply that the user stops before it ends.'.length);
    await continuesAfterwards(rig, c.id);
  });

  it('stop after thinking and a tool call, mid-text: the signed thinking, the call and the text so far are kept in order', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { thinking: true, maxTokens: 1024 });
    const c = await rig.conversations.create();
    const call = memoryCall({ command: 'view', path: '/memories' });
    rig.fake.script({ ...reply(thinking('Plan first.'), call, text('And now a long explanation that gets cut.')), stop_reason: 'tool_use', delayMs: 20, chunk: 2 });
    const controller = new AbortController();
    let seen = 0;
    const events = await rig.turn(c.id, 'hello', { signal: controller.signal, onEvent: (e) => e.type === 'text' && ++seen === 3 && controller.abort() });
    expect(errorOf(events)?.code).toBe('cancelled');
    // The budget must stay below max_tokens: a small max_tokens is raised to make room.
    const sent = rig.fake.requests[0]!.body as unknown as { max_tokens: number; thinking: { budget_tokens: number } };
    expect(sent.thinking.budget_tokens).toBe(1024);
    expect(sent.max_tokens).toBeGreaterThan(1024);
    const saved = await rig.conversations.get(c.id);
    const assistant = saved!.messages.at(-2)!;
    expect(assistant.role).toBe('assistant');
    const blocks = assistant.content as Array<{ type: string; text?: string; signature?: string }>;
    expect(blocks.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'text']);
    expect(blocks[0]!.signature).toBe('sig');
    expect('And now a long explanation that gets cut.'.startsWith(blocks[2]!.text!)).toBe(true);
    expect(saved!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', is_error: true }] });
    await continuesAfterwards(rig, c.id);
  });

  it('stop during a tool call leaves no half-written memory and the dangling call is answered', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const body = 'x'.repeat(5000);
    rig.fake.script(reply(text('Saving.'), memoryCall({ command: 'create', path: '/memories/big.md', file_text: body }), memoryCall({ command: 'create', path: '/memories/second.md', file_text: 'two' })));
    const controller = new AbortController();
    const events = await rig.turn(c.id, 'save it', { signal: controller.signal, onEvent: (e) => e.type === 'tool_start' && controller.abort() });
    expect(errorOf(events)?.code).toBe('cancelled');
    for (const p of ['/memories/big.md', '/memories/second.md']) {
      const meta = rig.t.vault.memory.stat(p);
      // Either the whole file or nothing.
      if (meta) expect((await rig.t.vault.memory.readFile(p)).length).toBe(p.endsWith('big.md') ? body.length : 3);
    }
    await continuesAfterwards(rig, c.id);
    const next = rig.fake.requests.at(-1)!.body.messages;
    const blocks = next.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; id?: string; tool_use_id?: string }>) : []));
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
    const answered = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    // Every call the stopped reply made has its result in the history the API receives.
    expect(uses.length).toBeGreaterThan(0);
    expect(answered).toEqual(uses);
  });

  it('stop while a memory write waits for approval: nothing is written and the call is answered as an error', async () => {
    rig = await chatRig();
    await saveSettings(rig.t.vault, { approvalMode: true });
    const c = await rig.conversations.create();
    rig.fake.script(reply(memoryCall({ command: 'create', path: '/memories/held.md', file_text: 'never written' })));
    const controller = new AbortController();
    const events = await rig.turn(c.id, 'save it', {
      signal: controller.signal,
      approve: () => {
        controller.abort();
        return new Promise<boolean>(() => undefined);
      },
    });
    expect(errorOf(events)?.code).toBe('cancelled');
    expect(rig.t.vault.memory.stat('/memories/held.md')).toBeUndefined();
    await continuesAfterwards(rig, c.id);
    const results = rig.fake.requests.at(-1)!.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; is_error?: boolean }>) : [])).filter((b) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]!.is_error).toBe(true);
  });
});
