/**
 * A fresh process that reads a vault's header first thing, as `mnemo memory`
 * and `mnemo mcp` do to find the app's channel: vault.json's bytes come back
 * at once (read before the call, so the order does not hang on the disk), so
 * the header is parsed before libsodium's WebAssembly could have loaded.
 * Prints, as JSON, whether libsodium was loaded when the read began and the
 * vault id read (or the error).
 */
import fs from 'node:fs';
import path from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import { nodeFs } from '../../../electron/core/vault/fsio';
import { HeaderFile } from '../../../electron/core/vault/headerfile';

const dir = process.argv[2]!;
const bytes = new Uint8Array(fs.readFileSync(path.join(dir, 'vault.json')));
const loadedBefore = typeof (sodium as { crypto_generichash?: unknown }).crypto_generichash === 'function';
const read = await HeaderFile.read(dir, { ...nodeFs, readFile: async () => bytes }).then(
  (h) => ({ vaultId: h.vaultId }),
  (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }),
);
process.stdout.write(`${JSON.stringify({ loadedBefore, ...read })}\n`);
