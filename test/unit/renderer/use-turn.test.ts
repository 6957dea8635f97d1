// @vitest-environment jsdom
/**
 * The chat's turns (renderer/features/chat/use-turn.ts) against a scripted
 * main: events that come before main names the turn are kept, a message made
 * during a switch goes where the user ended up, a first message that fails
 * leaves no empty conversation and comes back to the box, and Retry never
 * sends one conversation's words to another.
 */
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ChatEvent } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc-values';
import type { AttachmentsState } from '../../../renderer/features/chat/Attachments';
import { useOpenConversation } from '../../../renderer/features/chat/use-open-conversation';
import { useTurn, useTurnStore } from '../../../renderer/features/chat/use-turn';
import type { TurnState } from '../../../renderer/features/chat/turn-state';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const conv = (id: string, transcript: Conversation['transcript'] = []): Conversation => ({ id, title: id, created: 1, updated: 1, transcript }) as unknown as Conversation;
const ok = <T>(value: T) => ({ ok: true as const, value });

/** What main holds: conversations by id. */
let stored: Map<string, Conversation>;
/** chatGet calls for these ids wait until the test opens their gate. */
let gated: Map<string, () => void>;
let sends: Array<{ id: string; text: string }>;
let deleted: string[];
let turnCount: number;
/** Events main emits, as chatSend would, before it answers with the turn's id. */
let beforeAnswer: ChatEvent[];
let listeners: Map<string, (payload: unknown) => void>;
let root: Root;
let open: ReturnType<typeof useOpenConversation>;
let turns: ReturnType<typeof useTurn>;
let state: TurnState;

function Probe() {
  open = useOpenConversation(() => undefined);
  const [store, s] = useTurnStore();
  state = s;
  const attachments = { pending: [], setPending: () => undefined, setErrors: () => undefined, restore: () => undefined } as unknown as AttachmentsState;
  turns = useTurn({ store, open, attachments, input: { current: null }, refreshList: () => undefined, onVersionEnded: () => undefined });
  return null;
}

beforeEach(async () => {
  stored = new Map();
  gated = new Map();
  sends = [];
  deleted = [];
  turnCount = 0;
  beforeAnswer = [];
  listeners = new Map();
  localStorage.clear();
  (window as unknown as { mnemo: unknown }).mnemo = {
    chatGet: ({ id }: { id: string }) =>
      new Promise((resolve) => {
        const answer = () => resolve(ok(stored.get(id) ?? conv(id)));
        if (gated.has(id)) gated.set(id, answer);
        else answer();
      }),
    chatCreate: async () => {
      const c = conv(`new${stored.size + 1}`);
      stored.set(c.id, c);
      return ok(c);
    },
    chatSend: async ({ id, text }: { id: string; text: string }) => {
      sends.push({ id, text });
      const turnId = `turn${++turnCount}`;
      for (const event of beforeAnswer) emit(turnId, id, event);
      return ok({ turnId });
    },
    chatRewind: async ({ id }: { id: string }) => {
      const c = stored.get(id)!;
      stored.set(id, { ...c, transcript: c.transcript.slice(0, -2) });
      return ok({ text: c.transcript.at(-2)!.text });
    },
    chatDelete: async ({ id }: { id: string }) => (deleted.push(id), stored.delete(id), ok(null)),
    on: (event: string, listener: (payload: unknown) => void) => (listeners.set(event, listener), () => listeners.delete(event)),
  };
  root = createRoot(document.createElement('div'));
  await act(async () => root.render(createElement(Probe)));
});
afterEach(() => act(() => root.unmount()));

function emit(turnId: string, conversationId: string, event: ChatEvent) {
  listeners.get('chatEvent')?.({ turnId, conversationId, event });
}

/** Opens conversation `id` as the user does, and waits until it is shown. */
async function openConv(id: string) {
  await act(async () => void (await open.open(id)));
}

it('keeps the events that come before main has named the turn, and shows them in it', async () => {
  beforeAnswer = [{ type: 'text', delta: 'Early words.', start: true }];
  await openConv('a');
  await act(async () => void (await turns.send('hello')));
  await act(async () => new Promise((r) => requestAnimationFrame(() => r(undefined))));
  expect(state.live?.text).toBe('Early words.');
  expect(state.live?.conversationId).toBe('a');
  expect(state.draft).toBe('');
});

it('refuses a second message while Claude answers, and says why', async () => {
  await openConv('a');
  await act(async () => void (await turns.send('first')));
  await act(async () => void (await turns.send('second')));
  expect(sends).toEqual([{ id: 'a', text: 'first' }]);
  expect(state.failure?.code).toBe('busy');
});

it('sends a message made during a switch to the conversation being opened, not the one shown before', async () => {
  await openConv('a');
  gated.set('b', () => undefined);
  let sending!: Promise<void>;
  await act(async () => {
    void open.open('b');
    sending = turns.send('for b');
  });
  await act(async () => gated.get('b')!());
  await act(async () => sending);
  expect(sends).toEqual([{ id: 'b', text: 'for b' }]);
  expect(state.live?.conversationId).toBe('b');
});

it('a first message that fails before anything is saved leaves no empty conversation, and its words come back to the box', async () => {
  await act(async () => void (await turns.send('my first words')));
  expect(sends).toEqual([{ id: 'new1', text: 'my first words' }]);
  await act(async () => {
    emit('turn1', 'new1', { type: 'error', code: 'no_key', message: 'No API key is set.' });
    emit('turn1', 'new1', { type: 'done' } as ChatEvent);
  });
  expect(deleted).toEqual(['new1']);
  expect(open.conv).toBeUndefined();
  expect(state.live).toBeUndefined();
  expect(state.draft).toBe('my first words');
  expect(state.failure?.code).toBe('no_key');
});

it('Retry takes the broken exchange back and sends it again in its own conversation', async () => {
  stored.set('a', conv('a', [{ role: 'user', text: 'question for a', at: 1 }, { role: 'assistant', text: '', at: 2, tools: [], error: { code: 'overloaded', message: 'busy' } }] as Conversation['transcript']));
  await openConv('a');
  await act(async () => void (await turns.retry(0, { sendEdit: () => undefined, regenerate: () => undefined })));
  expect(sends).toEqual([{ id: 'a', text: 'question for a' }]);
});

it('Retry never sends one conversation’s words to another: opened elsewhere meanwhile, the words wait in the box', async () => {
  stored.set('a', conv('a', [{ role: 'user', text: 'question for a', at: 1 }, { role: 'assistant', text: '', at: 2, tools: [], error: { code: 'overloaded', message: 'busy' } }] as Conversation['transcript']));
  await openConv('a');
  // Retry reloads "a" after taking the exchange back; the user opens "b" while it loads.
  gated.set('a', () => undefined);
  let retrying!: Promise<void>;
  await act(async () => void (retrying = turns.retry(0, { sendEdit: () => undefined, regenerate: () => undefined })));
  await act(async () => void open.open('b'));
  await act(async () => gated.get('a')!());
  await act(async () => retrying);
  expect(open.conv?.id).toBe('b');
  expect(sends).toEqual([]);
  expect(state.draft).toBe('question for a');
});
