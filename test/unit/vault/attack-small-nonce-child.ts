/**
 * Child of attack-small-nonce.test.ts: opens the vault at argv[2] (state argv[3], OpenOptions argv[4]) per call,
 * writes argv[6] files under /memories/<argv[5]>/, and prints one JSON line: every nonce this process sealed with
 * (hex, as handed to XChaCha20-Poly1305) and a batch of bare `uniqueBytes(24)`.
 */
import sodium from 'libsodium-wrappers-sumo';
import { cryptoReady, uniqueBytes } from '../../../electron/core/vault/crypto';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';

const [dir, state, opts, who, n] = process.argv.slice(2) as [string, string, string, string, string];
await cryptoReady();
const nonces: string[] = [];
const real = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt.bind(sodium);
(sodium as unknown as Record<string, unknown>).crypto_aead_xchacha20poly1305_ietf_encrypt = ((m: Uint8Array, ad: Uint8Array, s: null, nonce: Uint8Array, key: Uint8Array) => {
  nonces.push(sodium.to_hex(nonce));
  return real(m, ad, s, nonce, key);
}) as typeof sodium.crypto_aead_xchacha20poly1305_ietf_encrypt;
const vault = await Vault.open(dir, { stateDir: state, ...(JSON.parse(opts) as OpenOptions) });
await vault.unlock('correct horse battery staple');
for (let i = 0; i < Number(n); i++) await vault.memory.writeFile(`/memories/${who}/${i}.md`, `${who} ${i}`, { mode: 'upsert', source: 'user' });
await vault.close();
const bare: string[] = [];
for (let i = 0; i < 2000; i++) bare.push(sodium.to_hex(uniqueBytes(24)));
process.stdout.write(`${JSON.stringify({ nonces, bare })}\n`);
