/**
 * A vault creation killed (or failing, say on a full disk) at any step before
 * vault.json is written leaves a folder with no memories: the next creation in
 * it must succeed, not call it a damaged vault that only a backup can restore.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';
import { Vault } from '../../../electron/core/vault/vault';
import { FLOOR, PASS } from './helpers';

/** The real disk, failing every change from the `n`th on (as if the process died there). */
function dyingAt(n: number): VaultFs {
  let calls = 0;
  const step = () => {
    if (++calls >= n) throw Object.assign(new Error('killed'), { code: 'EIO' });
  };
  return {
    ...nodeFs,
    async open(file, mode) {
      if (mode !== 'read') step();
      const f = await nodeFs.open(file, mode);
      return { ...f, write: async (b, p) => (step(), f.write(b, p)), sync: async () => (step(), f.sync()) };
    },
    rename: async (a, b) => (step(), nodeFs.rename(a, b)),
    mkdir: async (d) => (step(), nodeFs.mkdir(d)),
    unlink: async (f) => (step(), nodeFs.unlink(f)),
    syncDir: async (d) => (step(), nodeFs.syncDir(d)),
  };
}

describe('a vault creation cut short', () => {
  it('at every step before vault.json exists, the folder takes a new vault afterwards', async () => {
    await cryptoReady();
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-create-cut-'));
    try {
      let steps = 0;
      for (let n = 1; ; n++) {
        const dir = path.join(root, `v${n}`);
        const state = path.join(root, `s${n}`);
        const cut = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: state, fs: dyingAt(n) }).then(
          async (made) => {
            await made.vault.close();
            return false;
          },
          () => true,
        );
        if (!cut) break;
        steps++;
        // Whatever is there, vault.json is not yet (or the vault is whole): the folder takes a vault or opens.
        const whole = await fs.stat(path.join(dir, 'vault.json')).then(() => true, () => false);
        if (whole) continue;
        expect(await Vault.exists(dir)).toBe(false);
        const again = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: state });
        await again.vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'user' });
        expect(await again.vault.memory.readFile('/memories/a.md')).toBe('a');
        await again.vault.close();
        expect((await fs.readdir(dir)).filter((x) => x.startsWith('.mnemo-creating') || x.startsWith('.tmp-'))).toEqual([]);
      }
      expect(steps).toBeGreaterThan(3);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
