// @vitest-environment jsdom
/**
 * The chat's open conversation (renderer/features/chat/use-open-conversation.ts)
 * against a scripted main: what is shown and what the ref holds never
 * disagree, the last switch asked for wins whatever order the answers come
 * in, and a change meant for one conversation never lands on another.
 */
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Conversation } from '../../../electron/shared/ipc-values';
import { lastOpened, useOpenConversation } from '../../../renderer/features/chat/use-open-conversation';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const conv = (id: string, title = id): Conversation => ({ id, title, created: 1, updated: 1, messageCount: 0, transcript: [] }) as unknown as Conversation;

/** chatGet answers when the test says so: each call waits on its own gate. */
let gates: Map<string, { resolve: (c: Conversation) => void; reject: (e: unknown) => void }>;
let created = 0;
/** chatCreate waits on this gate when set. */
let createGate: Promise<void> | undefined;
let deleted: string[];
let listReads = 0;
let root: Root;
let hook: ReturnType<typeof useOpenConversation>;
/** What was on screen at each render. */
let rendered: Array<string | undefined>;

function Probe() {
  hook = useOpenConversation(() => listReads++);
  rendered.push(hook.conv?.title);
  return null;
}

beforeEach(async () => {
  gates = new Map();
  created = 0;
  createGate = undefined;
  deleted = [];
  listReads = 0;
  rendered = [];
  localStorage.clear();
  const ok = <T>(value: T) => ({ ok: true as const, value });
  (window as unknown as { mnemo: unknown }).mnemo = {
    chatGet: ({ id }: { id: string }) => new Promise((resolve, reject) => gates.set(id, { resolve: (c) => resolve(ok(c)), reject })),
    chatCreate: async () => {
      const id = `new${++created}`;
      await createGate;
      return ok(conv(id));
    },
    chatDelete: async ({ id }: { id: string }) => (deleted.push(id), ok(undefined)),
    on: () => () => undefined,
  };
  root = createRoot(document.createElement('div'));
  await act(async () => root.render(createElement(Probe)));
});
afterEach(() => act(() => root.unmount()));

/** Lets main answer chatGet for `id` with `c`. */
async function answer(id: string, c: Conversation = conv(id)) {
  await act(async () => {
    await Promise.resolve();
    gates.get(id)!.resolve(c);
  });
}

it('shows the last conversation asked for, even when an earlier one answers after it', async () => {
  let first!: Promise<Conversation>;
  let second!: Promise<Conversation>;
  await act(async () => {
    first = hook.open('a');
    second = hook.open('b');
  });
  await answer('b');
  await answer('a');
  await act(async () => void (await Promise.all([first, second])));
  expect(hook.conv?.id).toBe('b');
  expect(hook.convRef.current?.id).toBe('b');
  expect(lastOpened()).toBe('b');
  // "a" was never put on screen over "b".
  expect(rendered.at(-1)).toBe('b');
});

it('hands a message sent during a switch the conversation being opened, not the old one', async () => {
  await act(async () => void hook.open('a'));
  await answer('a');
  let waiting!: Promise<Conversation | undefined>;
  await act(async () => {
    void hook.open('b');
    waiting = hook.current();
  });
  await answer('b');
  expect((await waiting)?.id).toBe('b');
});

it('puts a change (a title, a model) on the conversation it is for, and never on another one open meanwhile', async () => {
  await act(async () => void hook.open('a'));
  await answer('a');
  await act(async () => hook.update('a', (c) => ({ ...c, title: 'Named' })));
  expect(hook.conv?.title).toBe('Named');
  expect(hook.convRef.current?.title).toBe('Named');
  await act(async () => hook.update('z', (c) => ({ ...c, title: 'Wrong' })));
  expect(hook.conv?.title).toBe('Named');
  // A finished reply of another conversation is not shown over the open one.
  let shown = true;
  await act(async () => void (shown = hook.showIfOpen(conv('z', 'Other'))));
  expect(shown).toBe(false);
  expect(hook.conv?.id).toBe('a');
});

it('forgets a deleted conversation: off the screen and out of the page storage, others untouched', async () => {
  await act(async () => void hook.open('a'));
  await answer('a');
  await act(async () => hook.forget('z'));
  expect(hook.conv?.id).toBe('a');
  expect(lastOpened()).toBe('a');
  await act(async () => hook.forget('a'));
  expect(hook.conv).toBeUndefined();
  expect(hook.convRef.current).toBeUndefined();
  expect(lastOpened()).toBeNull();
});

it('makes a new conversation and opens it, remembered for the next start', async () => {
  await act(async () => void (await hook.create()));
  expect(hook.conv?.id).toBe('new1');
  expect(hook.conv?.transcript).toEqual([]);
  expect(lastOpened()).toBe('new1');
});

it('waits for a switch started while it waited: a message goes where the user ended up', async () => {
  await act(async () => void hook.open('a'));
  await answer('a');
  let waiting!: Promise<Conversation | undefined>;
  await act(async () => {
    void hook.open('b');
    waiting = hook.current();
    void hook.open('c');
  });
  await answer('b');
  await answer('c');
  expect((await waiting)?.id).toBe('c');
});

it('keeps the conversation shown when opening another fails, and ends the switch', async () => {
  await act(async () => void hook.open('a'));
  await answer('a');
  let failed!: Promise<unknown>;
  await act(async () => void (failed = hook.open('b').catch((e: unknown) => e)));
  await act(async () => {
    await Promise.resolve();
    gates.get('b')!.reject(new Error('gone'));
  });
  expect(await failed).toBeInstanceOf(Error);
  expect(hook.conv?.id).toBe('a');
  expect(await hook.current()).toMatchObject({ id: 'a' });
});

it('makes a conversation for the first message, or, if the user opened one meanwhile, uses that and deletes the empty one', async () => {
  let made!: Promise<Conversation>;
  await act(async () => void (made = hook.target()));
  expect((await made).id).toBe('new1');
  expect(hook.conv?.id).toBe('new1');
  expect(listReads).toBe(1);

  await act(async () => hook.forget('new1'));
  let release!: () => void;
  createGate = new Promise((r) => (release = r));
  let second!: Promise<Conversation>;
  await act(async () => void (second = hook.target()));
  // While it is being made, the user opens "x".
  await act(async () => void hook.open('x'));
  await answer('x');
  await act(async () => release());
  expect((await second).id).toBe('x');
  expect(hook.conv?.id).toBe('x');
  expect(deleted).toEqual(['new2']);
});

it('uses the conversation the user opened while one was being made even when it answers after the made one', async () => {
  let release!: () => void;
  createGate = new Promise((r) => (release = r));
  let pending!: Promise<Conversation>;
  await act(async () => void (pending = hook.target()));
  await act(async () => void hook.open('y'));
  await act(async () => release());
  await answer('y');
  expect((await pending).id).toBe('y');
  expect(hook.conv?.id).toBe('y');
  expect(deleted).toEqual(['new1']);
});
