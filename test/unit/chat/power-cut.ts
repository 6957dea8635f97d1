/**
 * A power cut in the vault's internal store, for crash tests of conversation
 * saves. Each internal put is atomic and durable on its own (the vault's crash
 * tests prove that at every file-system call), so the disk after a cut holds
 * exactly the puts made before it.
 */
import type { VaultApi } from '../../../electron/core/vault/types';

export class PowerCut extends Error {}

/** `vault` whose internal store fails its `at`-th put or delete (0-based) and every one after; `writes` counts them. */
export function cutAt(vault: VaultApi, at: number): { vault: VaultApi; writes: { n: number } } {
  const writes = { n: 0 };
  const gate = () => {
    if (writes.n++ >= at) throw new PowerCut('power cut');
  };
  const inner = vault.internal;
  const internal: VaultApi['internal'] = {
    get: (k) => inner.get(k),
    getJSON: (k) => inner.getJSON(k),
    keys: (p) => inner.keys(p),
    put: async (k, v) => (gate(), inner.put(k, v)),
    putJSON: async (k, v) => (gate(), inner.putJSON(k, v)),
    delete: async (k) => (gate(), inner.delete(k)),
  };
  return { vault: new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) }), writes };
}
