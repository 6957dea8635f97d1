/**
 * Shared set-up for the memory-tool tests: a real vault in a temp dir (one per
 * test file, emptied between tests), and a wrapper that injects vault faults.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { createMemoryHandlers, type MemoryHandlerOptions } from '../../../electron/core/memory/handlers';
import { runMemoryCommand, type MemoryCommandResult } from '../../../electron/core/memory/run';
import { Vault } from '../../../electron/core/vault/vault';
import type { EntryMeta, VaultApi } from '../../../electron/core/vault/types';

export const FAST_KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };

export interface TestVault {
  vault: Vault;
  /** The temp dir holding the vault and its device state. */
  root: string;
  /** Removes every memory, so the next test starts from an empty /memories. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export async function tempDir(prefix = 'mnemo-memory-'): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** A fresh vault at the floor KDF (real Argon2id, cheapest the vault accepts). */
/** `format`: the vault's format chosen explicitly; absent, the default (MNEMO_FORMAT). */
export async function openTestVault(format?: { format2: boolean }): Promise<TestVault> {
  const root = await tempDir();
  const { vault } = await Vault.create(path.join(root, 'vault'), 'pass phrase', { kdf: FAST_KDF, stateDir: path.join(root, 'state'), ...format });
  return {
    vault,
    root,
    clear: () =>
      vault.exclusive(async (ops) => {
        for (const entry of ops.list('/memories', 1)) await ops.remove(entry.path, 'system');
      }),
    close: async () => {
      await vault.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Every memory entry in the vault, for before/after comparisons. */
export function snapshotEntries(vault: VaultApi): EntryMeta[] {
  return vault.memory.list('/memories', Infinity);
}

/** Handlers over `vault` with the guard off unless asked, and a runner bound to them. */
export function memoryTool(vault: VaultApi, opts: Partial<MemoryHandlerOptions> = {}): {
  handlers: MemoryToolHandlers;
  run: (input: unknown) => Promise<MemoryCommandResult>;
} {
  const handlers = createMemoryHandlers(vault, { guardMode: () => 'allow', ...opts });
  return { handlers, run: (input) => runMemoryCommand(handlers, input) };
}

/** Every file and directory under `dir` (relative paths), to show a command touched nothing on the host. */
export async function hostTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.push(path.relative(dir, p) + (e.isDirectory() ? '/' : ''));
      if (e.isDirectory()) await walk(p);
    }
  };
  await walk(dir);
  return out.sort();
}
