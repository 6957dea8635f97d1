import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';
import { FLOOR, fullDisk, PASS } from './helpers';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

const upsert = (v: Vault, p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });

describe('a full disk', () => {
  for (const room of [0, 1, 100, 1000, 5000, 20_000, 60_000]) {
    it(`a write that runs out of space with ${room} bytes left fails clearly, keeps every earlier write, and the vault works once space is back`, async () => {
      root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-full-'));
      const dir = path.join(root, 'vault');
      const stateDir = path.join(root, 'state');
      const disk = fullDisk();
      const { vault } = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir, fs: disk.fs });
      const kept = new Map<string, string>();
      for (let i = 0; i < 20; i++) {
        const text = `kept ${i} `.repeat(300);
        await upsert(vault, `/memories/k${i}.md`, text);
        kept.set(`/memories/k${i}.md`, text);
      }
      disk.room.bytes = room;
      const failures: unknown[] = [];
      for (let i = 0; i < 40; i++) {
        const p = `/memories/big${i}.md`;
        const text = `big ${i} `.repeat(3000);
        await upsert(vault, p, text).then(
          () => void kept.set(p, text),
          (e: unknown) => void failures.push(e),
        );
      }
      expect(failures.length).toBeGreaterThan(0);
      for (const e of failures) {
        expect(e).toBeInstanceOf(VaultError);
        expect((e as Error).message).not.toMatch(/ENOSPC|no space left on device|\/tmp\//);
      }
      // Space is back: the same session writes again, and a reopen holds everything acknowledged.
      disk.room.bytes = Infinity;
      await upsert(vault, '/memories/after.md', 'after');
      kept.set('/memories/after.md', 'after');
      await vault.close();
      const again = await Vault.open(dir, { stateDir });
      try {
        await again.unlock(PASS);
        const problems = (await again.verify()).problems;
        const lost: string[] = [];
        for (const [p, text] of kept) if ((await again.memory.readFile(p).catch(() => 'ERR')) !== text) lost.push(p);
        expect({ problems, lost }).toEqual({ problems: [], lost: [] });
      } finally {
        await again.close();
      }
    });
  }
});
