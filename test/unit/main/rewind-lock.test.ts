/**
 * "Edit last message" (chatRewind) takes the last exchange back and hands its
 * words and attachments to the window. A lock landing while it runs must not
 * lose the message: either the window gets it back, or it is still in the
 * conversation after unlocking.
 */
import { afterEach, expect, it } from 'vitest';
import { png } from '../../fixtures/attachments/make';
import { attachmentRig, b64, PASS, value } from './attachment-rig';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

it('a lock at any moment of "Edit last message" leaves the message either given back or still in the conversation', async () => {
  const a = await attachmentRig(cleanup, { prefix: 'mnemo-rewind-lock-' });
  // The lock lands 0, 1, 2… ms into the rewind: before it, between taking the exchange back and reading its files, after.
  for (let ms = 0; ms < 16; ms++) {
    const ref = value(await a.call('chatAttachData', { id: a.conv.id, name: 'shot.png', data: b64(png(3, 3)) })) as { id: string };
    const words = `Question ${ms}?`;
    await a.sendTurn(a.conv.id, words, [ref.id], `answer ${ms}`);
    const rewinding = a.call('chatRewind', { id: a.conv.id });
    await new Promise((resolve) => (ms ? setTimeout(resolve, ms) : setImmediate(resolve)));
    await a.session.lock('idle');
    const back = await rewinding;
    value(await a.call('vaultUnlock', { passphrase: PASS }));
    const c = value(await a.call('chatGet', { id: a.conv.id })) as { transcript: Array<{ role: string; text: string }> };
    const kept = c.transcript.some((e) => e.role === 'user' && e.text === words);
    const given = back.ok && (back.value as { text: string }).text === words;
    expect(kept || given, `a lock after ${ms} ms: ${JSON.stringify(back)}`).toBe(true);
    // Nothing held for the window after a lock: the attachments given back before it were let go with it.
    expect(a.session.attachments.all(a.conv.id)).toEqual([]);
  }
});
