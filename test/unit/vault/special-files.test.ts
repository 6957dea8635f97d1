import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';
import { PASS, tempVault, type TempVault } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

async function manifestOf(dir: string): Promise<string> {
  return path.join(dir, (await fs.readdir(dir)).find((n) => /^manifest\.[0-9a-f]+$/.test(n))!);
}

/** Replaces `file` with a FIFO (`fifo`) or a link to /dev/zero (`endless`). */
async function plant(file: string, kind: 'fifo' | 'endless'): Promise<void> {
  await fs.rm(file);
  if (kind === 'fifo') execFileSync('mkfifo', [file]);
  else await fs.symlink('/dev/zero', file);
}

/** Opens and unlocks; resolves with the VaultError it fails with (or undefined). */
async function openError(t: TempVault): Promise<VaultError | undefined> {
  try {
    const v = await Vault.open(t.dir, { stateDir: t.stateDir });
    try {
      await v.unlock(PASS);
    } finally {
      await v.close();
    }
    return undefined;
  } catch (e) {
    return e as VaultError;
  }
}

describe('vault files replaced by special files', () => {
  for (const kind of ['fifo', 'endless'] as const) {
    it(`a vault.json that is a ${kind === 'fifo' ? 'FIFO' : 'link to an endless device'} is refused with a clear error, without hanging or exhausting memory`, async () => {
      t = await tempVault();
      await t.vault.close();
      await plant(path.join(t.dir, 'vault.json'), kind);
      const err = await openError(t);
      expect(err).toBeInstanceOf(VaultError);
      expect(err!.message).not.toMatch(/\/tmp\/|ENXIO|EINVAL/);
    });

    it(`a manifest that is a ${kind === 'fifo' ? 'FIFO' : 'link to an endless device'} is refused with a clear error, without hanging or exhausting memory`, async () => {
      t = await tempVault();
      await t.vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'user' });
      await t.vault.close();
      await plant(await manifestOf(t.dir), kind);
      const err = await openError(t);
      expect(err).toBeInstanceOf(VaultError);
    });
  }
});
