/**
 * The vault's cryptographic primitives, all from libsodium. Keys are
 * Uint8Arrays only; callers zero them with `wipe` when they are done.
 */
import sodium from 'libsodium-wrappers-sumo';

export const KEY_BYTES = 32;
export const NONCE_BYTES = 24;
export const ID_BYTES = 16;
export const HASH_BYTES = 32;
const KDF_CONTEXT = 'mnemo-v1';

/** Subkey ids under the vault master key, one per kind of data (`contentId`: format v2's `k`, docs/sync-design.md §2.1). */
export const SUBKEY = { manifest: 1, blobs: 2, internal: 3, journal: 4, contentId: 5 } as const;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Resolves once libsodium's WebAssembly module is loaded (about 20 ms the first time). */
export async function cryptoReady(): Promise<void> {
  await sodium.ready;
}

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
/** Strict UTF-8 decoding: invalid bytes throw instead of turning into U+FFFD. */
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b);

/** Random bytes straight from the platform's generator, through libsodium: for keys, salts, seeds and tokens. */
export function randomBytes(n: number): Uint8Array {
  return sodium.randombytes_buf(n);
}

const POOL_BYTES = 4096;
let pool: Uint8Array | undefined;
let poolAt = 0;

/**
 * Bytes that must never repeat but need not be secret: nonces, blob ids, file names. libsodium.js asks the platform
 * for randomness four bytes per call, so `randombytes_buf(24)` costs 60–75 µs here (measured; three or four of them
 * were a third of a memory write). These come instead from a pool made by libsodium's ChaCha20 stream generator
 * (`randombytes_buf_deterministic`) under a fresh 32-byte seed from `randombytes_buf` at each refill, the construction
 * of libsodium's own internal generator: as unpredictable and as unlikely to repeat as the platform's bytes. Each
 * byte is handed out once and zeroed in the pool; a process or worker has its own pool. Keys never come from here.
 */
export function uniqueBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (!pool || poolAt + n > pool.length) {
    wipe(pool);
    const seed = randomBytes(KEY_BYTES);
    pool = sodium.randombytes_buf_deterministic(POOL_BYTES, seed);
    wipe(seed);
    poolAt = 0;
  }
  const out = pool.slice(poolAt, poolAt + n);
  pool.fill(0, poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/**
 * Zeroes a key or plaintext buffer in place. The same overwrite as libsodium.js's memzero (which, in the
 * JavaScript wrapper, is a byte-by-byte loop: 9–13 ms for 8 MiB here, a tenth of opening a long conversation),
 * done by the engine's native fill (0.4–0.7 ms).
 */
export function wipe(...buffers: (Uint8Array | undefined)[]): void {
  for (const b of buffers) if (b) b.fill(0);
}

export function hash(data: Uint8Array): Uint8Array {
  return sodium.crypto_generichash(HASH_BYTES, data, null);
}

/** BLAKE2b of `data` keyed with `key`: a digest only a holder of the key can make or test guesses against. */
export function keyedHash(key: Uint8Array, data: Uint8Array): Uint8Array {
  return sodium.crypto_generichash(HASH_BYTES, data, key);
}

/** Constant-time equality of two byte strings of any length. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && sodium.memcmp(a, b);
}

export function deriveSubkey(master: Uint8Array, id: number): Uint8Array {
  return sodium.crypto_kdf_derive_from_key(KEY_BYTES, id, KDF_CONTEXT, master);
}

/** XChaCha20-Poly1305 with a fresh random nonce; returns nonce ‖ ciphertext. */
export function seal(key: Uint8Array, plaintext: Uint8Array, ad: Uint8Array): Uint8Array {
  const nonce = uniqueBytes(NONCE_BYTES);
  const ct = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, null, nonce, key);
  return concat(nonce, ct);
}

/** Inverse of `seal`; returns undefined when authentication fails. */
export function open(key: Uint8Array, sealed: Uint8Array, ad: Uint8Array): Uint8Array | undefined {
  if (sealed.length < NONCE_BYTES + 16) return undefined;
  try {
    return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, sealed.subarray(NONCE_BYTES), ad, sealed.subarray(0, NONCE_BYTES), key);
  } catch {
    return undefined;
  }
}

/**
 * Pads so that ciphertext sizes leak only a size bucket: 256-byte blocks for
 * small data, 4 KiB up to 64 KiB, 64 KiB above. The block size travels in the
 * first (encrypted) byte so unpadding needs no outside knowledge.
 */
export function padded(data: Uint8Array): Uint8Array {
  const log2 = data.length < 4096 ? 8 : data.length < 65536 ? 12 : 16;
  const body = sodium.pad(data, 1 << log2);
  const out = new Uint8Array(body.length + 1);
  out[0] = log2;
  out.set(body, 1);
  wipe(body);
  return out;
}

export function unpadded(data: Uint8Array): Uint8Array {
  const log2 = data[0];
  if (log2 !== 8 && log2 !== 12 && log2 !== 16) throw new Error('bad padding');
  return sodium.unpad(data.subarray(1), 1 << log2);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const toHex = (b: Uint8Array): string => sodium.to_hex(b);
export const fromHex = (s: string): Uint8Array => sodium.from_hex(s);
export const toB64 = (b: Uint8Array): string => sodium.to_base64(b, sodium.base64_variants.ORIGINAL);
export const fromB64 = (s: string): Uint8Array => sodium.from_base64(s, sodium.base64_variants.ORIGINAL);

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, in dash-separated groups of four: how the recovery key is shown. */
export function toRecoveryText(key: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of key) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out.match(/.{1,4}/g)!.join('-');
}

/** Parses a recovery key as typed: case, spaces and dashes are forgiven. Undefined if malformed. */
export function fromRecoveryText(text: string, bytes: number): Uint8Array | undefined {
  const clean = text.toUpperCase().replace(/[\s-]/g, '');
  if (clean.length !== Math.ceil((bytes * 8) / 5)) return undefined;
  const out = new Uint8Array(bytes);
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const ch of clean) {
    const v = B32.indexOf(ch);
    if (v < 0) return undefined;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8 && at < bytes) {
      out[at++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  return at === bytes ? out : undefined;
}
