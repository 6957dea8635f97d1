/**
 * The conversation index is checked against every head once per unlock (a cut
 * save leaves its entry stale). The app keeps one Vault object across its
 * locks and unlocks, so "once per unlock" must not mean "once per Vault object".
 */
import { afterEach, expect, it, vi } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { chatRig, type ChatRig } from './helpers';
import { PASS } from '../vault/helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await rig?.close();
  rig = undefined;
});

it('a lock between a rename’s head and its index leaves a title the list shows again after the next unlock', async () => {
  rig = await chatRig();
  const vault = rig.t.vault;
  const store = new Conversations(vault);
  const c = await store.create();
  expect((await store.list()).find((s) => s.id === c.id)?.title).toBe(c.title);
  // The user renames, archives, and locks at once (or the computer sleeps): the lock lands after the head is written.
  const put = vault.internal.putJSON.bind(vault.internal);
  let armed = true;
  vi.spyOn(vault.internal, 'putJSON').mockImplementation(async (key, value) => {
    // The index is `conversations-index` in format 1, `cache/<device>/conversations-index` in format 2.
    if (armed && (key === 'conversations-index' || /^cache\/[^/]+\/conversations-index$/.test(key))) {
      armed = false;
      vault.lock();
    }
    return put(key, value);
  });
  await expect(store.rename(c.id, 'Renamed before the lock')).rejects.toMatchObject({ code: 'LOCKED' });
  vi.restoreAllMocks();
  await vault.unlock(PASS);
  // The head is what opens; the list must say the same.
  expect((await new Conversations(vault).require(c.id)).title).toBe('Renamed before the lock');
  expect((await new Conversations(vault).list()).find((s) => s.id === c.id)?.title).toBe('Renamed before the lock');
});
