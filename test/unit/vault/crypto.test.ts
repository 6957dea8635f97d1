import sodium from 'libsodium-wrappers-sumo';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cryptoReady, fromRecoveryText, open, padded, randomBytes, seal, toRecoveryText, uniqueBytes, unpadded, utf8 } from '../../../electron/core/vault/crypto';
import { calibrateKdf, deriveKey, KDF_FLOOR, kdfInBounds } from '../../../electron/core/vault/kdf';

const hex = (s: string) => sodium.from_hex(s.replace(/\s+/g, ''));

beforeAll(cryptoReady);

describe('known answers', () => {
  it('XChaCha20-Poly1305 matches the draft-irtf-cfrg-xchacha A.3.1 vector', () => {
    const plaintext = utf8("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");
    const ad = hex('50515253c0c1c2c3c4c5c6c7');
    const key = hex('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f');
    const nonce = hex('404142434445464748494a4b4c4d4e4f5051525354555657');
    const expected = hex(`bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e
      c0875924c1c7987947deafd8780acf49`);
    const ct = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, null, nonce, key);
    expect(sodium.to_hex(ct)).toBe(sodium.to_hex(expected));
    // Our seal/open framing (nonce ‖ ciphertext) opens the reference ciphertext.
    const framed = new Uint8Array([...nonce, ...expected]);
    expect(open(key, framed, ad)).toEqual(plaintext);
  });

  it('Argon2id (v1.3, one lane) matches the reference implementation, run in the worker', async () => {
    const salt = utf8('ABCDEFGHIJKLMNOP');
    // Inside our floor the worker refuses; the vectors use small parameters, so check the primitive directly...
    const direct = sodium.crypto_pwhash(32, '123', salt, 5, 1024 * 1024, sodium.crypto_pwhash_ALG_ARGON2ID13);
    expect(sodium.to_hex(direct)).toBe('3c5d010180ba0cf5b6b858cba23b318e42d33088983c404598599c3b029ecac6');
    const direct2 = sodium.crypto_pwhash(32, '123', salt, 2, 8 * 1024 * 1024, sodium.crypto_pwhash_ALG_ARGON2ID13);
    expect(sodium.to_hex(direct2)).toBe('3ee950488d26ce691657b1d753f562139857b61a58f234d6cb0ce84c4cc27328');
    // ...and that the worker computes the same function as the main thread at the floor.
    const params = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
    const inWorker = await deriveKey(utf8('123'), salt, params);
    expect(sodium.to_hex(inWorker)).toBe(sodium.to_hex(sodium.crypto_pwhash(32, '123', salt, 2, params.memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13)));
  });
});

describe('unique bytes (nonces, ids, names)', () => {
  it('never repeat across pool refills, and draw from the platform once per pool, not once per nonce', () => {
    const real = sodium.randombytes_buf.bind(sodium);
    // What the platform gave, copied before the pool wipes its seed.
    const seeds: string[] = [];
    const platform = vi.spyOn(sodium, 'randombytes_buf').mockImplementation(((n: number) => {
      const b = real(n);
      seeds.push(sodium.to_hex(b));
      return b;
    }) as typeof sodium.randombytes_buf);
    try {
      const key = randomBytes(32);
      platform.mockClear();
      seeds.length = 0;
      const nonces = new Set<string>();
      // 2,000 seals are about 12 pools of 4,096 bytes.
      for (let i = 0; i < 2000; i++) nonces.add(sodium.to_hex(seal(key, utf8('x'), utf8('ad')).subarray(0, 24)));
      expect(nonces.size).toBe(2000);
      const ids = new Set<string>();
      for (let i = 0; i < 2000; i++) ids.add(sodium.to_hex(uniqueBytes(16)));
      expect(ids.size).toBe(2000);
      // Before the pool, each seal drew its nonce from the platform: 2,000 calls of 60–75 µs.
      expect(platform.mock.calls.length).toBeGreaterThan(5);
      expect(platform.mock.calls.length).toBeLessThanOrEqual(Math.ceil((2000 * 24 + 2000 * 16) / 4096) + 2);
      // Each refill's seed is fresh: no two pools are the same stream.
      expect(new Set(seeds).size).toBe(seeds.length);
      // More than a pool at once comes straight from the platform.
      platform.mockClear();
      expect(uniqueBytes(10_000)).toHaveLength(10_000);
      expect(platform).toHaveBeenCalledWith(10_000);
    } finally {
      platform.mockRestore();
    }
  });
});

describe('framing helpers', () => {
  it('seal refuses to open under other associated data or a flipped byte', () => {
    const key = randomBytes(32);
    const sealed = seal(key, utf8('secret'), utf8('ad'));
    expect(open(key, sealed, utf8('ad'))).toEqual(utf8('secret'));
    expect(open(key, sealed, utf8('other'))).toBeUndefined();
    sealed[sealed.length - 1]! ^= 1;
    expect(open(key, sealed, utf8('ad'))).toBeUndefined();
  });

  it('padding hides exact sizes inside a bucket and round-trips', () => {
    expect(padded(utf8('a')).length).toBe(padded(utf8('a'.repeat(200))).length);
    for (const n of [0, 1, 255, 256, 4095, 4096, 70000]) {
      const data = randomBytes(n);
      expect(unpadded(padded(data))).toEqual(data);
    }
  });

  it('the recovery key text round-trips, forgiving case and spacing', () => {
    const key = randomBytes(32);
    const text = toRecoveryText(key);
    expect(text).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{1,4})+$/);
    expect(fromRecoveryText(text, 32)).toEqual(key);
    expect(fromRecoveryText(` ${text.toLowerCase().replace(/-/g, ' ')} `, 32)).toEqual(key);
    expect(fromRecoveryText(text.slice(0, -1), 32)).toBeUndefined();
    expect(fromRecoveryText(text.replace(/^./, '1'), 32)).toBeUndefined();
  });
});

describe('key derivation settings', () => {
  it('calibration never goes below the floor nor above the ceiling', async () => {
    const p = await calibrateKdf(50);
    expect(kdfInBounds(p)).toBe(true);
    expect(p.opslimit).toBeGreaterThanOrEqual(KDF_FLOOR.opslimit);
    expect(p.memlimit).toBeGreaterThanOrEqual(KDF_FLOOR.memlimit);
  });

  it('the worker refuses parameters outside the floor and ceiling', async () => {
    await expect(deriveKey(utf8('x'), new Uint8Array(16), { opslimit: 1, memlimit: KDF_FLOOR.memlimit })).rejects.toThrow(/outside the safe range/);
    await expect(deriveKey(utf8('x'), new Uint8Array(16), { opslimit: 2, memlimit: 2 * 1024 * 1024 * 1024 })).rejects.toThrow(/outside the safe range/);
  });
});
