/**
 * A process that has not opened a vault reads its header: `mnemo memory` and
 * `mnemo mcp` read vault.json for the vault's id (which names the running
 * app's channel) before anything else. Parsing the header hashes it with
 * libsodium, whose WebAssembly loads asynchronously: a read that finished
 * before that failed ("sodium.crypto_generichash is not a function"), the CLI
 * took it for "no vault id", went round the unlocked app to the vault itself
 * and, with no passphrase, answered nothing (mcp-concurrency.spec.ts on a busy
 * machine: `mnemo memory` wrote none of its rounds).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { expect, it } from 'vitest';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { nodeFs } from '../../../electron/core/vault/fsio';
import { HeaderFile } from '../../../electron/core/vault/headerfile';

const CHILD = path.join(import.meta.dirname, 'header-read-child.ts');
const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/vault-v1');

it("reads a vault's id in a fresh process even when vault.json is read before libsodium has loaded", async () => {
  await cryptoReady();
  const { vaultId } = await HeaderFile.read(FIXTURE, nodeFs);
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { value: line } = await readline.createInterface({ input: proc.stdout })[Symbol.asyncIterator]().next();
  // The case that failed: the header parsed before libsodium was ready (else this run would show nothing).
  expect(JSON.parse(String(line))).toEqual({ loadedBefore: false, vaultId });
});
