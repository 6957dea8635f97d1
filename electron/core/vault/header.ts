/**
 * `vault.json`: the only plaintext file. It names the format, the vault id and
 * the key slots that each wrap the vault master key. Every slot's wrap binds the
 * header fields that matter as associated data, so editing one makes unlock
 * fail instead of silently weakening the vault. A checksum over the canonical
 * bytes tells accidental damage (exit 4) apart from a wrong passphrase (exit 3).
 */
import sodium from 'libsodium-wrappers-sumo';
import { z } from 'zod';
import { fromB64, fromHex, hash, open, seal, toB64, toHex, utf8 } from './crypto';
import { kdfInBounds } from './kdf';
import { VaultError } from './types';
import { m } from '../i18n/message';

export const FORMAT = 'mnemo-vault';
export const VERSION = 1;
/** The multi-device format (docs/sync-design.md), read only where the caller allows it (the format-2 flag). */
export const VERSION_2 = 2;
/** Slots bind the version their wrap was made under, 1 for every slot so far: an upgrade to format 2 keeps them (vault.json's MAC binds the version itself). */
const SLOT_AD_VERSION = 1;

const b64 = z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/);
const KdfSchema = z.strictObject({
  alg: z.literal('argon2id13'),
  opslimit: z.number().int(),
  memlimit: z.number().int(),
  salt: b64,
});
const PassSlot = z.strictObject({ type: z.literal('passphrase'), kdf: KdfSchema, nonceAndKey: b64 });
const RecoverySlot = z.strictObject({ type: z.literal('recovery'), salt: b64, nonceAndKey: b64 });
const Slot = z.discriminatedUnion('type', [PassSlot, RecoverySlot]);
const HeaderBody = z.strictObject({
  format: z.literal(FORMAT),
  version: z.number().int(),
  vaultId: z.string().regex(/^[0-9a-f]{32}$/),
  /** Names the current manifest file; changes only when the keys are rotated. */
  manifest: z.string().regex(/^[0-9a-f]{32}$/),
  slots: z.array(Slot).min(1).max(4),
  /** Rises on every header write, so an older vault.json is told apart from the current one. Absent in headers written before MACs. */
  counter: z.number().int().min(1).optional(),
  /** crypto_auth over the canonical header (all but `mac` and `check`) under a subkey of the master key. */
  mac: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});
const HeaderFile = HeaderBody.extend({ check: z.string().regex(/^[0-9a-f]{64}$/) });

export type KdfHeader = z.infer<typeof KdfSchema>;
export type SlotHeader = z.infer<typeof Slot>;
export type Header = z.infer<typeof HeaderBody>;

// Fixed key order, so the same header always has the same bytes.
function canonicalSlot(s: SlotHeader): object {
  return s.type === 'passphrase'
    ? { type: s.type, kdf: { alg: s.kdf.alg, opslimit: s.kdf.opslimit, memlimit: s.kdf.memlimit, salt: s.kdf.salt }, nonceAndKey: s.nonceAndKey }
    : { type: s.type, salt: s.salt, nonceAndKey: s.nonceAndKey };
}
// Headers written before MACs have neither field, and must reserialize to the same bytes.
function canonicalBody(h: Header): object {
  return { ...macedBody(h), ...(h.mac !== undefined ? { mac: h.mac } : {}) };
}
function macedBody(h: Header): object {
  const base = { format: h.format, version: h.version, vaultId: h.vaultId, manifest: h.manifest, slots: h.slots.map(canonicalSlot) };
  return h.counter !== undefined ? { ...base, counter: h.counter } : base;
}

// Its own crypto_kdf context, so the header key can never equal a data subkey.
const HEADER_KDF_CONTEXT = 'mnemohdr';

function headerMac(h: Header, vmk: Uint8Array): string {
  const key = sodium.crypto_kdf_derive_from_key(sodium.crypto_auth_KEYBYTES, 1, HEADER_KDF_CONTEXT, vmk);
  try {
    return toHex(sodium.crypto_auth(utf8(JSON.stringify(macedBody(h))), key));
  } finally {
    sodium.memzero(key);
  }
}

/** `h` with the next counter and a MAC under `vmk`: what is written to vault.json. */
export function sealHeader(h: Header, vmk: Uint8Array, previousCounter: number): Header {
  const { mac: _old, ...rest } = h;
  const next: Header = { ...rest, counter: previousCounter + 1 };
  return { ...next, mac: headerMac(next, vmk) };
}

/** True when the header carries a MAC that `vmk` confirms. */
export function headerAuthentic(h: Header, vmk: Uint8Array): boolean {
  if (h.mac === undefined) return false;
  const expected = fromHex(headerMac(h, vmk));
  return sodium.memcmp(expected, fromHex(h.mac));
}

/** True if `bytes` (vault.json as read from disk) parse and carry a MAC that `vmk` confirms. */
export function headerBytesAuthentic(bytes: Uint8Array | undefined, vmk: Uint8Array, maxVersion: number = VERSION): boolean {
  try {
    return bytes !== undefined && headerAuthentic(parseHeader(bytes, maxVersion), vmk);
  } catch {
    return false;
  }
}

/** The message for a header whose slots, counter or KDF settings were changed by someone without the key. */
export const headerModified = (): VaultError =>
  new VaultError('DAMAGED', m('errors:header.modified'), 'vault.json');

/** The exact bytes written to vault.json. */
export function serializeHeader(h: Header): Uint8Array {
  const body = canonicalBody(h);
  const check = toHex(hash(utf8(JSON.stringify(body))));
  return utf8(JSON.stringify({ ...body, check }, null, 2) + '\n');
}

const damaged = () => new VaultError('DAMAGED', m('errors:header.damaged'), 'vault.json');

/**
 * Parses vault.json, refusing anything not byte-for-byte canonical or outside
 * this build's limits; a version above `maxVersion` (format 2, unless the
 * caller opts in) is refused as a newer build's.
 */
export function parseHeader(bytes: Uint8Array, maxVersion: number = VERSION): Header {
  let parsed: z.infer<typeof HeaderFile>;
  try {
    parsed = HeaderFile.parse(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
  } catch {
    throw damaged();
  }
  const { check, ...body } = parsed;
  const again = serializeHeader(body);
  if (again.length !== bytes.length || !again.every((b, i) => b === bytes[i])) throw damaged();
  if (toHex(hash(utf8(JSON.stringify(canonicalBody(body))))) !== check) throw damaged();
  if (body.version < VERSION || body.version > maxVersion) throw new VaultError('BAD_HEADER', m('errors:header.version', { version: body.version, supported: maxVersion }), 'vault.json');
  for (const slot of body.slots) {
    if (slot.type === 'passphrase' && !kdfInBounds(slot.kdf)) {
      throw new VaultError('BAD_HEADER', m('errors:header.kdfOutOfRange'), 'vault.json');
    }
  }
  return body;
}

/** Associated data for a slot's wrap: everything in the header that must not change, minus the wrap itself. */
function slotAd(h: Pick<Header, 'format' | 'version' | 'vaultId'>, slot: SlotHeader): Uint8Array {
  const { nonceAndKey: _wrap, ...rest } = canonicalSlot(slot) as { nonceAndKey: string };
  return utf8(JSON.stringify({ format: h.format, version: SLOT_AD_VERSION, vaultId: h.vaultId, slot: rest }));
}

type Unwrapped<T extends SlotHeader> = Omit<T, 'nonceAndKey'>;

/** Wraps the master key for a slot under a key-encryption key. */
export function wrapSlot<T extends SlotHeader>(h: Pick<Header, 'format' | 'version' | 'vaultId'>, slot: Unwrapped<T>, kek: Uint8Array, vmk: Uint8Array): T {
  const full = { ...slot, nonceAndKey: '' } as T;
  return { ...full, nonceAndKey: toB64(seal(kek, vmk, slotAd(h, full))) };
}

/** The master key, or undefined if this key-encryption key does not open the slot. */
export function unwrapSlot(h: Header, slot: SlotHeader, kek: Uint8Array): Uint8Array | undefined {
  return open(kek, fromB64(slot.nonceAndKey), slotAd(h, slot));
}

export const vaultIdBytes = (h: Header): Uint8Array => fromHex(h.vaultId);
