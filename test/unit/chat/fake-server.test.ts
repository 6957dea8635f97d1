import Anthropic, { AuthenticationError, BadRequestError } from '@anthropic-ai/sdk';
import { afterEach, expect, it } from 'vitest';
import { memoryCall, reply, startFakeAnthropic, text, thinking, type FakeAnthropic } from '../../fake-anthropic/server';

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const client = (f: FakeAnthropic, apiKey = f.apiKey) => new Anthropic({ apiKey, baseURL: f.baseURL, maxRetries: 0 });

it('answers a non-streaming request with a whole message and records the request', async () => {
  fake = await startFakeAnthropic();
  fake.script((req) => reply(text(`You said ${JSON.stringify(req.body.messages.at(-1)!.content)}.`)));
  const message = await client(fake).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  expect(message).toMatchObject({ role: 'assistant', model: 'claude-sonnet-4-6', stop_reason: 'end_turn', content: [{ type: 'text', text: 'You said "hi".' }] });
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0]!.headers['x-api-key'] ?? fake.requests[0]!.headers.authorization).toContain(fake.apiKey);
  expect(fake.remaining()).toBe(0);
});

it('streams thinking, text and a tool call that the SDK assembles into the same message', async () => {
  fake = await startFakeAnthropic();
  const call = memoryCall({ command: 'create', path: '/memories/a.md', file_text: 'a fairly long text so the JSON comes in several pieces' });
  fake.script(reply(thinking('Hmm.'), text('Writing it down.'), call));
  const stream = client(fake).messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  const deltas: string[] = [];
  stream.on('text', (d) => deltas.push(d));
  const message = await stream.finalMessage();
  expect(deltas.length).toBeGreaterThan(1);
  expect(deltas.join('')).toBe('Writing it down.');
  expect(message.stop_reason).toBe('tool_use');
  expect(message.content).toEqual([
    { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
    { type: 'text', text: 'Writing it down.' },
    { type: 'tool_use', id: call.type === 'tool_use' ? call.id : '', name: 'memory', input: call.type === 'tool_use' ? call.input : {} },
  ]);
});

it('a wrong key gets the API’s 401 error, and a history the API would refuse gets its 400', async () => {
  fake = await startFakeAnthropic();
  fake.script(reply(text('kept for a valid request')));
  await expect(client(fake, 'sk-ant-wrong').messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(AuthenticationError);
  const err = await client(fake)
    .messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'memory', input: {} }] },
        { role: 'user', content: 'no result for the call' },
      ],
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(BadRequestError);
  expect((err as BadRequestError).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect(String((err as BadRequestError).message)).toMatch(/toolu_x/);
  // Neither request consumed the scripted turn.
  expect(fake.remaining()).toBe(1);
  expect(fake.requests).toHaveLength(2);
});
