/**
 * Nothing a person typed or Claude wrote is lost to a lock: a lock in the
 * middle of a reply stops the turn as Stop does and saves the message and what
 * had streamed (marked as interrupted) before the keys go; a draft the vault
 * cannot take at lock is handed back to the window, not dropped in silence.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VaultError } from '../../../electron/core/vault/types';
import type { EventName } from '../../../electron/shared/ipc';
import { reply, text } from '../../fake-anthropic/server';
import { closeApps, handlerApp, PASS } from './handler-app';

afterEach(closeApps);

const app = () => handlerApp('mnemo-lockturn-');

const streamed = (emitted: Array<{ event: EventName; payload: unknown }>) =>
  emitted.flatMap((e) => (e.event === 'chatEvent' && (e.payload as { event: { type: string; delta?: string } }).event.type === 'text' ? [(e.payload as { event: { delta: string } }).event.delta] : [])).join('');

describe('a lock during a streaming reply', () => {
  it.each(['user', 'idle', 'system'] as const)('a %s lock keeps the message and what had streamed, marked as interrupted', async (reason) => {
    const a = await app();
    const conv = await a.call<{ id: string }>('chatCreate');
    const long = 'A slow answer that arrives a few characters at a time. '.repeat(40);
    a.fake.script({ ...reply(text(long)), delayMs: 20, chunk: 4 });
    await a.call('chatSend', { id: conv.id, text: 'Tell me a long story.' });
    await vi.waitFor(() => expect(streamed(a.emitted).length).toBeGreaterThan(40), { timeout: 10_000 });
    if (reason === 'user') await a.call('vaultLock');
    else await a.session.lock(reason);
    expect(a.session.isUnlocked()).toBe(false);
    expect(a.session.turns.size).toBe(0);
    await a.call('vaultUnlock', { passphrase: PASS });
    const c = await a.call<{ transcript: Array<Record<string, unknown>> }>('chatGet', { id: conv.id });
    expect(c.transcript).toHaveLength(2);
    expect(c.transcript[0]).toMatchObject({ role: 'user', text: 'Tell me a long story.' });
    const answer = c.transcript[1] as { text: string; stopped?: boolean; error?: { code: string; message: string } };
    expect(answer).toMatchObject({ role: 'assistant', stopped: true, error: { code: 'locked', message: expect.stringMatching(/interrupted/i) } });
    expect(answer.text.length).toBeGreaterThan(20);
    expect(long.startsWith(answer.text)).toBe(true);
    // The window heard that the vault locked only after the turn had saved.
    const lockedAt = a.emitted.findIndex((e) => e.event === 'vaultLocked');
    const doneAt = a.emitted.findIndex((e) => e.event === 'chatEvent' && (e.payload as { event: { type: string } }).event.type === 'done');
    expect(doneAt).toBeGreaterThanOrEqual(0);
    expect(doneAt).toBeLessThan(lockedAt);
    // And the conversation goes on.
    a.fake.script(reply(text('Where were we?')));
    await a.call('chatSend', { id: conv.id, text: 'Go on.' });
    await vi.waitFor(async () => expect((await a.call<{ transcript: unknown[] }>('chatGet', { id: conv.id })).transcript).toHaveLength(4), { timeout: 10_000 });
  });

  it('a lock before any of the reply has come still keeps the message', async () => {
    const a = await app();
    const conv = await a.call<{ id: string }>('chatCreate');
    // The server takes its time before the first event.
    a.fake.script(() => ({ ...reply(text('late')), delayMs: 2000 }));
    await a.call('chatSend', { id: conv.id, text: 'Are you there?' });
    await vi.waitFor(() => expect(a.fake.requests).toHaveLength(1), { timeout: 10_000 });
    await a.call('vaultLock');
    await a.call('vaultUnlock', { passphrase: PASS });
    const c = await a.call<{ transcript: Array<Record<string, unknown>> }>('chatGet', { id: conv.id });
    expect(c.transcript).toMatchObject([
      { role: 'user', text: 'Are you there?' },
      { role: 'assistant', stopped: true, error: { code: 'locked' } },
    ]);
  });
});

describe('a draft the vault cannot take at lock', () => {
  it('is handed back to the window with why, before the vault locks, and the lock still happens', async () => {
    const a = await app();
    await a.call('draftsPut', { kind: 'chat', draft: { text: 'Half-typed 7781' } });
    await a.call('draftsPut', { kind: 'memory', draft: { path: '/memories/a.md', text: 'edit 7782', baseVersion: 1 } });
    const vault = a.session.unlocked();
    vi.spyOn(vault.internal, 'putJSON').mockRejectedValue(new VaultError('IO', 'The disk is full: the vault could not be written.'));
    await a.call('vaultLock');
    expect(a.session.isUnlocked()).toBe(false);
    const notice = a.emitted.findIndex((e) => e.event === 'draftsNotSaved');
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(notice).toBeLessThan(a.emitted.findIndex((e) => e.event === 'vaultLocked'));
    expect(a.emitted[notice]!.payload).toEqual({
      drafts: { chat: { text: 'Half-typed 7781' }, memory: { path: '/memories/a.md', text: 'edit 7782', baseVersion: 1 } },
      message: expect.stringMatching(/disk is full.*stays only in this window/s),
      key: 'errors:drafts.notKept',
      params: { reason: expect.objectContaining({ key: expect.any(String) }) },
    });
    // Nothing of them stays in main once locked.
    expect(a.session.drafts.holdsAny()).toBe(false);
  });

  it('a lock whose drafts were written tells the window nothing of the kind', async () => {
    const a = await app();
    await a.call('draftsPut', { kind: 'chat', draft: { text: 'Half-typed 7783' } });
    await a.call('vaultLock');
    expect(a.emitted.some((e) => e.event === 'draftsNotSaved')).toBe(false);
  });
});
