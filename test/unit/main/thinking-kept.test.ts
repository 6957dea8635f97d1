/**
 * A finished reply keeps Claude's thinking (plain text, capped), so the window
 * can show it again after the reply is done, after switching conversations and
 * after a lock; conversations stored before it was kept still open.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { keptThinking, THINKING_KEPT_CHARS } from '../../../electron/core/chat/reply-limits';
import { memoryCall, reply, text, thinking } from '../../fake-anthropic/server';
import { closeApps, handlerApp, PASS } from './handler-app';

afterEach(closeApps);

type Entry = { role: string; text: string; thinking?: string };

async function app() {
  const { call, ...made } = await handlerApp('mnemo-thinking-');
  /** Sends a message and waits until its exchange is in the conversation, as the window reads it. */
  const exchange = async (id: string, message: string, before: number): Promise<Entry[]> => {
    await call('chatSend', { id, text: message });
    let transcript: Entry[] = [];
    await vi.waitFor(
      async () => {
        transcript = (await call<{ transcript: Entry[] }>('chatGet', { id })).transcript;
        expect(transcript).toHaveLength(before + 2);
      },
      { timeout: 10_000 },
    );
    return transcript;
  };
  return { ...made, call, exchange };
}

describe('thinking kept with the reply', () => {
  it('comes back through chatGet with the reply, every round of the turn, and again after a lock and unlock', async () => {
    const a = await app();
    await saveSettings(a.session.unlocked(), { thinking: true });
    const conv = await a.call<{ id: string }>('chatCreate');
    a.fake.script(reply(thinking('First I look at memory.'), memoryCall({ command: 'view', path: '/memories' })), reply(thinking('Nothing there; <b>answer</b> plainly.'), text('Hello!')));
    const transcript = await a.exchange(conv.id, 'Hi', 0);
    expect(transcript[1]).toMatchObject({ role: 'assistant', text: 'Hello!', thinking: 'First I look at memory.\n\nNothing there; <b>answer</b> plainly.' });
    expect(transcript[0]).not.toHaveProperty('thinking');

    await a.call('vaultLock');
    await a.call('vaultUnlock', { passphrase: PASS });
    const after = await a.call<{ transcript: Entry[] }>('chatGet', { id: conv.id });
    expect(after.transcript[1]!.thinking).toBe('First I look at memory.\n\nNothing there; <b>answer</b> plainly.');
  });

  it('is not kept when thinking is off, and a reply without thinking has no thinking field', async () => {
    const a = await app();
    const conv = await a.call<{ id: string }>('chatCreate');
    // A server that sends thinking nobody asked for: not shown, so not kept either.
    a.fake.script(reply(thinking('Unasked-for thoughts.'), text('Plain answer.')));
    const transcript = await a.exchange(conv.id, 'Hi', 0);
    expect(transcript[1]).toMatchObject({ role: 'assistant', text: 'Plain answer.' });
    expect(transcript[1]).not.toHaveProperty('thinking');
  });

  it('a conversation stored before thinking was kept (no thinking, no parts) still opens and goes on', async () => {
    const a = await app();
    await saveSettings(a.session.unlocked(), { thinking: true });
    // The single-value layout an earlier version wrote, its reply in the shape of that time.
    const id = '0123456789abcdef';
    await a.session.unlocked().internal.putJSON(`conversations/${id}`, {
      id,
      title: 'Older',
      created: 1,
      updated: 2,
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hi there.' }] },
      ],
      transcript: [
        { role: 'user', text: 'Hello', at: 1 },
        { role: 'assistant', text: 'Hi there.', at: 2, tools: [] },
      ],
    });
    const old = await a.call<{ transcript: Entry[] }>('chatGet', { id });
    expect(old.transcript).toEqual([
      { role: 'user', text: 'Hello', at: 1 },
      { role: 'assistant', text: 'Hi there.', at: 2, tools: [] },
    ]);
    a.fake.script(reply(thinking('Carry on.'), text('Again.')));
    const transcript = await a.exchange(id, 'More', 2);
    expect(transcript[3]).toMatchObject({ text: 'Again.', thinking: 'Carry on.' });
    expect(transcript[1]).not.toHaveProperty('thinking');
  });
});

describe('keptThinking', () => {
  it('keeps thinking up to the cap whole, and past it the start and how much was left out', () => {
    expect(keptThinking('short')).toBe('short');
    const exact = 'x'.repeat(THINKING_KEPT_CHARS);
    expect(keptThinking(exact)).toBe(exact);
    const long = 'y'.repeat(THINKING_KEPT_CHARS + 1234);
    const kept = keptThinking(long);
    expect(kept.startsWith('y'.repeat(THINKING_KEPT_CHARS))).toBe(true);
    expect(kept).toMatch(/\[… 1,234 more characters of thinking were not kept\]$/);
    expect(kept.length).toBeLessThan(THINKING_KEPT_CHARS + 100);
  });

  it('never cuts a character made of two UTF-16 units in half', () => {
    const kept = keptThinking('ab😀cd', 3);
    expect(kept.startsWith('ab\n\n')).toBe(true);
    expect(kept).toContain('4 more characters');
    expect(keptThinking('ab😀cd', 4).startsWith('ab😀\n\n')).toBe(true);
  });
});
