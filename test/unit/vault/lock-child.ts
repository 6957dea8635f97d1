/**
 * A separate process that opens a vault (taking its lock) when told "go" on
 * stdin, prints "won" or the error code, and holds what it got until stdin closes.
 */
import readline from 'node:readline';
import { Vault } from '../../../electron/core/vault/vault';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { VaultError } from '../../../electron/core/vault/types';

const dir = process.argv[2]!;
const stateDir = process.argv[3]!;
await cryptoReady();
const lines = readline.createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line !== 'go') continue;
  try {
    await Vault.open(dir, { stateDir });
    process.stdout.write('won\n');
  } catch (e) {
    process.stdout.write(`${e instanceof VaultError ? e.code : 'ERROR'} ${e instanceof Error ? e.message : ''}\n`);
  }
}
