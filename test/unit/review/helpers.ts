/**
 * Set-up shared by the review inbox tests: a fresh vault for each test, and
 * writes as Claude (from a chat turn) and as the user.
 */
import { afterEach, beforeEach } from 'vitest';
import type { VaultApi } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from '../vault/helpers';

/** A fresh unlocked vault made before each test and removed after it; read it only inside a test. */
export function useTempVault(): TempVault {
  let current: TempVault | undefined;
  beforeEach(async () => {
    current = await tempVault();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const now = (): TempVault => {
    if (!current) throw new Error('The test vault exists only while a test runs.');
    return current;
  };
  return new Proxy({} as TempVault, {
    get: (_, key) => Reflect.get(now(), key),
    set: (_, key, v) => Reflect.set(now(), key, v),
  });
}

export const claudeBy = { kind: 'claude' as const, conversationId: 'c1', turn: 1 };

/** Writes `text` at `path` as Claude did in turn 1 of conversation c1. */
export const claude = (v: VaultApi, path: string, text: string) => v.memory.writeFile(path, text, { mode: 'upsert', source: 'claude', by: claudeBy });

/** Writes `text` at `path` as the user. */
export const user = (v: VaultApi, path: string, text: string) => v.memory.writeFile(path, text, { mode: 'upsert', source: 'user' });
