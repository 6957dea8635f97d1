import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { expect, it } from 'vitest';
import { answerDangling, sendable, STOPPED_RESULT, withUserMessage } from '../../../electron/core/chat/history';
import { historyProblem } from '../../fake-anthropic/server';

const call = { type: 'tool_use' as const, id: 'toolu_1', name: 'memory', input: { command: 'view', path: '/memories' } };

it('an empty refusal is dropped from the history and the user messages around it are joined', () => {
  const messages: BetaMessageParam[] = [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'text', text: '' }] },
    { role: 'user', content: 'two' },
    { role: 'assistant', content: [{ type: 'text', text: '  ' }, { type: 'text', text: 'answer' }] },
  ];
  const out = sendable(messages);
  expect(out).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
  ]);
  expect(historyProblem({ messages: out as never })).toBeUndefined();
  expect(historyProblem({ messages: messages as never })).toMatch(/non-whitespace text/);
});

it('a valid history passes through sendable unchanged', () => {
  const messages: BetaMessageParam[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [call] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    { role: 'assistant', content: 'done' },
  ];
  expect(sendable(messages)).toEqual(messages);
});

it('a dangling tool call is answered as stopped, and the next words follow the results in the same message', () => {
  const stopped: BetaMessageParam[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, call] },
  ];
  expect(historyProblem({ messages: stopped.concat({ role: 'user', content: 'next' }) as never })).toMatch(/without `tool_result` blocks immediately after: toolu_1/);
  const next = withUserMessage(answerDangling(stopped), 'next');
  expect(next.at(-1)).toEqual({
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: STOPPED_RESULT, is_error: true },
      { type: 'text', text: 'next' },
    ],
  });
  expect(historyProblem({ messages: next as never })).toBeUndefined();
});
