/**
 * A separate process that tries to take a vault's lock when told "go" on stdin,
 * prints "won" or the error code, and holds what it got until stdin closes.
 */
import readline from 'node:readline';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { VaultError } from '../../../electron/core/vault/types';

const dir = process.argv[2]!;
await cryptoReady();
const lines = readline.createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line !== 'go') continue;
  try {
    await acquireLock(dir);
    process.stdout.write('won\n');
  } catch (e) {
    process.stdout.write(`${e instanceof VaultError ? e.code : 'ERROR'} ${e instanceof Error ? e.message : ''}\n`);
  }
}
