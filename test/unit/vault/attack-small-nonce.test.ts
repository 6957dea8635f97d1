/**
 * Attack on the nonce pool (crypto.ts `uniqueBytes`): nonces, blob ids and file names from a ChaCha20 stream under a
 * fresh seed per 4 KiB. Here: two processes writing one vault at once (per call, as the CLI and the app do; both
 * formats) never seal with the same nonce, nor with one this process used; their bare pools share nothing; in one
 * process, 20,000 nonces in a row (about 120 refills) never repeat, and a mix of odd sizes straddling refills never
 * hands out the same bytes twice.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import { beforeAll, expect, it } from 'vitest';
import { cryptoReady, randomBytes, seal, uniqueBytes, utf8 } from '../../../electron/core/vault/crypto';
import { bundleChild } from './bundle-child';
import { tempVault } from './helpers';

let CHILD: string;
beforeAll(async () => {
  await cryptoReady();
  CHILD = await bundleChild(path.join(import.meta.dirname, 'attack-small-nonce-child.ts'));
}, 60_000);

function child(dir: string, state: string, opts: object, who: string, n: number): Promise<{ nonces: string[]; bare: string[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, dir, state, JSON.stringify(opts), who, String(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { nonces: string[]; bare: string[] }) : reject(new Error(`child ${who} exited ${code}: ${err}`))));
  });
}

for (const format2 of [false, true]) {
  it(`format ${format2 ? 2 : 1}: two processes writing one vault at once never seal with the same nonce`, { timeout: 180_000 }, async () => {
    const t = await tempVault({ format2 });
    try {
      // This process's own seals meanwhile (the app, writing while the CLI does).
      const mine: string[] = [];
      const real = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt.bind(sodium);
      const spy = ((m: Uint8Array, ad: Uint8Array, s: null, nonce: Uint8Array, key: Uint8Array) => {
        mine.push(sodium.to_hex(nonce));
        return real(m, ad, s, nonce, key);
      }) as typeof sodium.crypto_aead_xchacha20poly1305_ietf_encrypt;
      await t.vault.close();
      const opts = { lockPerCall: true, lockWaitMs: 60_000, format2 };
      const a = child(t.dir, path.join(t.root, 'state-a'), opts, 'a', 60);
      const b = child(t.dir, path.join(t.root, 'state-b'), opts, 'b', 60);
      const [ra, rb] = await Promise.all([a, b]);
      (sodium as unknown as Record<string, unknown>).crypto_aead_xchacha20poly1305_ietf_encrypt = spy;
      try {
        const me = await t.reopen();
        for (let i = 0; i < 30; i++) await me.memory.writeFile(`/memories/me/${i}.md`, `me ${i}`, { mode: 'upsert', source: 'user' });
        for (const who of ['a', 'b', 'me']) expect(me.memory.list(`/memories/${who}`, 1)).toHaveLength(who === 'me' ? 30 : 60);
      } finally {
        (sodium as unknown as Record<string, unknown>).crypto_aead_xchacha20poly1305_ietf_encrypt = real;
      }
      expect(ra.nonces.length).toBeGreaterThan(60);
      expect(rb.nonces.length).toBeGreaterThan(60);
      expect(mine.length).toBeGreaterThan(30);
      const all = [...ra.nonces, ...rb.nonces, ...mine];
      expect(new Set(all).size).toBe(all.length);
      const bare = [...ra.bare, ...rb.bare];
      expect(new Set(bare).size).toBe(bare.length);
      for (const n of all) expect(n).toMatch(/^[0-9a-f]{48}$/);
    } finally {
      await t.cleanup();
    }
  });
}

it('20,000 seals in a row and odd sizes straddling refills never repeat', () => {
  const key = randomBytes(32);
  const seen = new Set<string>();
  for (let i = 0; i < 20_000; i++) seen.add(sodium.to_hex(seal(key, utf8('x'), utf8('ad')).subarray(0, 24)));
  expect(seen.size).toBe(20_000);
  // Sizes that do not divide 4,096: the tail of each pool is skipped, never handed out twice.
  const chunks: string[] = [];
  for (let i = 0; i < 5_000; i++) chunks.push(sodium.to_hex(uniqueBytes([4, 8, 16, 24, 33, 4095][i % 6]!)));
  expect(new Set(chunks).size).toBe(chunks.length);
  // Every aligned 8-byte word of everything handed out is distinct too (a pool handed out twice would repeat them).
  const words = new Set<string>();
  let count = 0;
  for (const c of chunks) {
    for (let j = 0; j + 16 <= c.length; j += 16) {
      words.add(c.slice(j, j + 16));
      count++;
    }
  }
  expect(count).toBeGreaterThan(200_000);
  expect(words.size).toBe(count);
  // Zero-length and exactly-a-pool requests.
  expect(uniqueBytes(0)).toHaveLength(0);
  const whole = uniqueBytes(4096);
  expect(whole).toHaveLength(4096);
  expect(whole.some((b) => b !== 0)).toBe(true);
});
