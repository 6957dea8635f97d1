// @vitest-environment jsdom
import { expect, it } from 'vitest';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { applyEvent, type Live } from '../../../renderer/features/chat/live';
import { partsOf } from '../../../renderer/features/chat/Transcript';

const fresh = (): Live => ({ turnId: 't', conversationId: 'c', userText: 'hi', text: '', parts: [], thinking: '', tools: [], approvals: [] });

it('the live reply keeps text and memory calls in arrival order, and a new text block starts a new part', () => {
  let l = fresh();
  l = applyEvent(l, { type: 'text', delta: 'Let me ', start: true });
  l = applyEvent(l, { type: 'text', delta: 'check.' });
  l = applyEvent(l, { type: 'tool_start', id: 'a', command: 'view', path: '/memories' });
  l = applyEvent(l, { type: 'tool_end', id: 'a', command: 'view', path: '/memories', content: 'x', isError: false });
  l = applyEvent(l, { type: 'text', delta: 'Got it.', start: true });
  l = applyEvent(l, { type: 'text', delta: 'Second.', start: true });
  expect(l.parts).toEqual([
    { type: 'text', text: 'Let me check.' },
    { type: 'tool', id: 'a' },
    { type: 'text', text: 'Got it.' },
    { type: 'text', text: 'Second.' },
  ]);
  expect(l.tools).toHaveLength(1);
});

it('a reply saved before the order was kept shows its memory calls first, then its text', () => {
  const old: TranscriptEntry = { role: 'assistant', text: 'Done.', at: 1, tools: [{ id: 'a', command: 'view', path: '/memories', content: '', isError: false }] };
  expect(partsOf(old)).toEqual([
    { type: 'tool', id: 'a' },
    { type: 'text', text: 'Done.' },
  ]);
});
