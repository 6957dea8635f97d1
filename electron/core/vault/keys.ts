/**
 * Key slots: how a passphrase or the recovery key unwraps the vault master key,
 * and the subkeys derived from it.
 */
import { concat, deriveSubkey, fromB64, fromRecoveryText, hash, KEY_BYTES, randomBytes, toB64, toRecoveryText, utf8, wipe, SUBKEY } from './crypto';
import { deriveKey, SALT_BYTES } from './kdf';
import { unwrapSlot, wrapSlot, type Header, type SlotHeader } from './header';
import type { StoreKeys } from './store';
import { VaultError, type KdfParams } from './types';

type PassSlot = Extract<SlotHeader, { type: 'passphrase' }>;
type RecoverySlot = Extract<SlotHeader, { type: 'recovery' }>;
type HeaderId = Pick<Header, 'format' | 'version' | 'vaultId'>;

export function checkPassphrase(passphrase: unknown): string {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new VaultError('INVALID', 'Enter a passphrase.');
  // The same passphrase typed on another OS may arrive in another Unicode form.
  return passphrase.normalize('NFC');
}

/** A new passphrase slot wrapping `vmk`, with a fresh salt. */
export async function passphraseSlot(h: HeaderId, passphrase: string, kdf: KdfParams, vmk: Uint8Array): Promise<PassSlot> {
  const salt = randomBytes(SALT_BYTES);
  const kek = await deriveKey(utf8(checkPassphrase(passphrase)), salt, kdf);
  try {
    return wrapSlot<PassSlot>(h, { type: 'passphrase', kdf: { alg: 'argon2id13', opslimit: kdf.opslimit, memlimit: kdf.memlimit, salt: toB64(salt) } }, kek, vmk);
  } finally {
    wipe(kek);
  }
}

/** Unwraps the master key with a passphrase; BAD_PASSPHRASE if it does not open the slot. */
export async function unwrapWithPassphrase(h: Header, passphrase: string): Promise<Uint8Array> {
  const slot = h.slots.find((s): s is PassSlot => s.type === 'passphrase');
  if (!slot) throw new VaultError('BAD_HEADER', 'This vault has no passphrase slot.', 'vault.json');
  const kek = await deriveKey(utf8(checkPassphrase(passphrase)), fromB64(slot.kdf.salt), slot.kdf);
  const vmk = unwrapSlot(h, slot, kek);
  wipe(kek);
  if (!vmk) throw new VaultError('BAD_PASSPHRASE', 'Wrong passphrase: it does not open this vault. Nothing was changed; check it and try again, or use your recovery key.');
  return vmk;
}

function recoveryKek(salt: Uint8Array, rk: Uint8Array): Uint8Array {
  const input = concat(utf8('mnemo recovery key v1'), salt, rk);
  const kek = hash(input);
  wipe(input);
  return kek;
}

/** A new recovery slot for `vmk` and the recovery key as the user sees it (shown once). */
export function recoverySlot(h: HeaderId, vmk: Uint8Array): { slot: RecoverySlot; text: string } {
  const rk = randomBytes(KEY_BYTES);
  const salt = randomBytes(SALT_BYTES);
  const kek = recoveryKek(salt, rk);
  const slot = wrapSlot<RecoverySlot>(h, { type: 'recovery', salt: toB64(salt) }, kek, vmk);
  const text = toRecoveryText(rk);
  wipe(rk, kek);
  return { slot, text };
}

/** Unwraps the master key with the recovery key as typed. */
export function unwrapWithRecoveryKey(h: Header, text: unknown): Uint8Array {
  const rk = typeof text === 'string' ? fromRecoveryText(text, KEY_BYTES) : undefined;
  if (!rk) throw new VaultError('INVALID', 'That is not a recovery key: it is 13 groups of letters and digits separated by dashes.');
  const slot = h.slots.find((s): s is RecoverySlot => s.type === 'recovery');
  if (!slot) throw new VaultError('BAD_PASSPHRASE', 'This vault has no recovery key; unlock it with the passphrase.');
  const kek = recoveryKek(fromB64(slot.salt), rk);
  const vmk = unwrapSlot(h, slot, kek);
  wipe(rk, kek);
  if (!vmk) throw new VaultError('BAD_PASSPHRASE', 'That recovery key does not open this vault. Nothing was changed.');
  return vmk;
}

/** The four subkeys, one per kind of data. */
export function storeKeys(vmk: Uint8Array): StoreKeys {
  return {
    manifest: deriveSubkey(vmk, SUBKEY.manifest),
    journal: deriveSubkey(vmk, SUBKEY.journal),
    blobs: deriveSubkey(vmk, SUBKEY.blobs),
    internal: deriveSubkey(vmk, SUBKEY.internal),
  };
}

export function wipeKeys(k: StoreKeys | undefined): void {
  if (k) wipe(k.manifest, k.journal, k.blobs, k.internal);
}
