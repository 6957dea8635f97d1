/** Set-up the project tests share: a fresh vault per test, and the memory tool run against a vault. */
import { afterEach, beforeEach } from 'vitest';
import { createMemoryHandlers } from '../../../electron/core/memory/handlers';
import { runMemoryCommand } from '../../../electron/core/memory/run';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';

/** Gives each test of the calling file a fresh unlocked vault (handed to `set`), removed after the test. */
export function eachWithTempVault(set: (t: TempVault) => void): void {
  let current: TempVault | undefined;
  beforeEach(async () => {
    current = await tempVault();
    set(current);
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}

/** The memory tool as Claude calls it, on `vault`, with every write allowed. */
export const tool = (vault: VaultApi) => {
  const handlers = createMemoryHandlers(vault, { guardMode: () => 'allow' });
  return (input: Record<string, unknown>) => runMemoryCommand(handlers, input);
};
