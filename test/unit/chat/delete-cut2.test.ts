/**
 * Format 2: a delete marks the head deleted, removes the log, then the attachments. A power cut after the log is
 * gone but before the attachments are must not leave their bytes in the vault for good: the next start sweeps them.
 */
import { afterEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';
import { PowerCut } from './power-cut';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** `vault` whose internal store fails every delete of an attachment, as a cut right before the first of them. */
function cutBeforeAttachments(vault: VaultApi): VaultApi {
  const inner = vault.internal;
  const internal: VaultApi['internal'] = { ...inner, delete: async (k) => (k.startsWith('attachments/') ? Promise.reject(new PowerCut('power cut')) : inner.delete(k)) };
  return new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) });
}

it('format 2: a delete cut between the log and the attachments leaves no attachment bytes after the next start', async () => {
  t = await tempVault({ format2: true });
  const store = new Conversations(t.vault);
  const c = await store.create();
  await store.putAttachment(c.id, 'a1b2c3d4e5f60718', new Uint8Array([1, 2, 3]));
  await store.update(c.id, (x) => ({ ...x, transcript: [{ role: 'user', text: 'see the file', at: 1 }], messages: [{ role: 'user', content: 'see the file' }] }));
  expect(t.vault.internal.keys(`conversation-log/${c.id}/`).length).toBeGreaterThan(0);
  await expect(new Conversations(cutBeforeAttachments(t.vault)).delete(c.id)).rejects.toBeInstanceOf(PowerCut);
  expect(t.vault.internal.keys(`conversation-log/${c.id}/`)).toEqual([]);
  expect(t.vault.internal.keys('attachments/').length).toBe(1);

  // The next start: the list (which sweeps once per unlock) no longer shows it, and its bytes are gone.
  const v = await t.reopen();
  const again = new Conversations(v);
  expect((await again.list()).map((s) => s.id)).not.toContain(c.id);
  expect(await again.get(c.id)).toBeUndefined();
  expect(v.internal.keys('attachments/')).toEqual([]);
});
