/**
 * Key slots: how a passphrase or the recovery key unwraps the vault master key,
 * and the subkeys derived from it.
 */
import { concat, deriveSubkey, fromB64, fromRecoveryText, hash, KEY_BYTES, randomBytes, toB64, toHex, toRecoveryText, utf8, wipe, SUBKEY } from './crypto';
import { deriveKey, KDF_FLOOR, SALT_BYTES } from './kdf';
import { FORMAT, sealHeader, unwrapSlot, VERSION, wrapSlot, type Header, type SlotHeader } from './header';
import type { StoreKeys } from './store';
import { VaultError, type KdfParams } from './types';
import { m } from '../i18n/message';

type PassSlot = Extract<SlotHeader, { type: 'passphrase' }>;
type RecoverySlot = Extract<SlotHeader, { type: 'recovery' }>;
type HeaderId = Pick<Header, 'format' | 'version' | 'vaultId'>;

export function checkPassphrase(passphrase: unknown): string {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new VaultError('INVALID', m('errors:unlock.emptyPassphrase'));
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

/** The Argon2id cost of the passphrase slot (the floor if there is none). */
export function passphraseCost(h: Header): KdfParams {
  const slot = h.slots.find((s): s is PassSlot => s.type === 'passphrase');
  return slot ? { opslimit: slot.kdf.opslimit, memlimit: slot.kdf.memlimit } : { ...KDF_FLOOR };
}

/** `h` with its passphrase slot replaced by one for `next`, at cost `kdf` (default: the current slot's cost). */
export async function withPassphrase(h: Header, next: string, kdf: KdfParams | undefined, vmk: Uint8Array): Promise<Header> {
  const slot = await passphraseSlot(h, next, kdf ?? passphraseCost(h), vmk);
  return { ...h, slots: [slot, ...h.slots.filter((s) => s.type !== 'passphrase')] };
}

/** Unwraps the master key with a passphrase; BAD_PASSPHRASE if it does not open the slot. */
export async function unwrapWithPassphrase(h: Header, passphrase: string): Promise<Uint8Array> {
  const slot = h.slots.find((s): s is PassSlot => s.type === 'passphrase');
  if (!slot) throw new VaultError('BAD_HEADER', m('errors:header.noPassphraseSlot'), 'vault.json');
  const kek = await deriveKey(utf8(checkPassphrase(passphrase)), fromB64(slot.kdf.salt), slot.kdf);
  const vmk = unwrapSlot(h, slot, kek);
  wipe(kek);
  if (!vmk) throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.wrongPassphrase'));
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
  const text = `${toRecoveryText(rk)}-${checkGroup(rk)}`;
  wipe(rk, kek);
  return { slot, text };
}

/** KEY_BYTES of base32 is 52 characters (13 groups); the check group adds 4 more. */
const KEY_CHARS = Math.ceil((KEY_BYTES * 8) / 5);
const CHECK_CHARS = 4;

/** Four base32 characters (20 bits) of a hash of the key: a mistyped character is caught before any unlock attempt. */
function checkGroup(rk: Uint8Array): string {
  const input = concat(utf8('mnemo recovery check v1'), rk);
  const digest = hash(input);
  const group = toRecoveryText(digest.subarray(0, 3)).slice(0, CHECK_CHARS);
  wipe(input, digest);
  return group;
}

const typo = () =>
  new VaultError('INVALID', m('errors:unlock.recoveryKeyTypo'));

/**
 * The recovery key's 32 bytes from the text as typed (case, spaces and dashes
 * forgiven). Keys printed since the check group was added have 14 groups and
 * must pass the check; keys printed before have 13 and are taken as they are.
 */
export function parseRecoveryKey(text: unknown): Uint8Array {
  if (typeof text !== 'string') throw typo();
  const clean = text.toUpperCase().replace(/[\s-]/g, '');
  if (clean.length !== KEY_CHARS && clean.length !== KEY_CHARS + CHECK_CHARS) {
    throw new VaultError('INVALID', m('errors:unlock.notARecoveryKey', { groups: 14, oldGroups: 13 }));
  }
  const rk = fromRecoveryText(clean.slice(0, KEY_CHARS), KEY_BYTES);
  if (!rk) throw typo();
  if (clean.length > KEY_CHARS && checkGroup(rk) !== clean.slice(KEY_CHARS)) {
    wipe(rk);
    throw typo();
  }
  return rk;
}

/** Unwraps the master key with the recovery key as typed. */
export function unwrapWithRecoveryKey(h: Header, text: unknown): Uint8Array {
  const rk = parseRecoveryKey(text);
  const slot = h.slots.find((s): s is RecoverySlot => s.type === 'recovery');
  if (!slot) throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.noRecoveryKey'));
  const kek = recoveryKek(fromB64(slot.salt), rk);
  const vmk = unwrapSlot(h, slot, kek);
  wipe(rk, kek);
  if (!vmk) throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.wrongRecoveryKey'));
  return vmk;
}

/**
 * A new vault's keys: a fresh master key and its subkeys, sealed into a first
 * header with a passphrase slot (at cost `kdf`) and a recovery slot, and the
 * recovery key as the user sees it (shown once).
 */
export async function newVaultKeys(passphrase: string, kdf: KdfParams): Promise<{ header: Header; vmk: Uint8Array; keys: StoreKeys; recoveryKey: string }> {
  const id = { format: FORMAT, version: VERSION, vaultId: toHex(randomBytes(16)) } as const;
  const vmk = randomBytes(32);
  const keys = storeKeys(vmk);
  const slots: Header['slots'] = [await passphraseSlot(id, passphrase, kdf, vmk)];
  const recovery = recoverySlot(id, vmk);
  slots.push(recovery.slot);
  const header = sealHeader({ ...id, manifest: toHex(randomBytes(16)), slots }, vmk, 0);
  return { header, vmk, keys, recoveryKey: recovery.text };
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
