/**
 * Values kept while a vault stays unlocked. The app keeps one Vault object
 * (and its stores) across locks and unlocks, so anything made from decrypted
 * data, or done "once per unlock", must be forgotten at the lock, not with
 * the object.
 */
import type { VaultApi } from './types';

/**
 * `kept`'s value under `key`, made by `make` on first use and forgotten (and
 * emptied, if it is a Map or Set, so no one holding it keeps what it held)
 * when `vault` next locks.
 */
export function untilLock<K extends object, V>(vault: VaultApi, kept: WeakMap<K, V>, key: K, make: () => V): V {
  if (kept.has(key)) return kept.get(key)!;
  const made = make();
  kept.set(key, made);
  const stop = vault.onChange((change) => {
    if (change.op !== 'lock') return;
    if (made instanceof Map || made instanceof Set) made.clear();
    if (kept.get(key) === made) kept.delete(key);
    stop();
  });
  return made;
}

const unlocks = new WeakMap<VaultApi, object>();

/** A token for this unlock of `vault` (a new one after each lock), for what is done once per unlock. */
export function unlockOf(vault: VaultApi): object {
  return untilLock(vault, unlocks, vault, () => ({}));
}
