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
  // Every other method (get, keys, and format 2's scheme, device, sweepable, version) is the store's own: a harness
  // that dropped `device` would make format-2 saves take the single-writer path while reads take the format-2 one.
  const gated: Partial<VaultApi['internal']> = {
    put: async (k, v) => (gate(), inner.put(k, v)),
    putJSON: async (k, v) => (gate(), inner.putJSON(k, v)),
    delete: async (k) => (gate(), inner.delete(k)),
  };
  const internal = new Proxy(inner, {
    get: (target, prop) => {
      if (typeof prop === 'string' && prop in gated) return gated[prop as keyof typeof gated];
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { vault: new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) }), writes };
}
