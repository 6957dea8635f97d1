/**
 * A disk with no room for the empty `.vault.lock` a writer makes (no free
 * inode, as on a full disk or quota) is reported as a full disk, like every
 * other write, not as an unexplained failure to lock. Needs a tmpfs mount
 * (root); skipped with the reason where it cannot be made.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { acquireLock, LOCK_FILE } from '../../../electron/core/vault/lockfile';

describe('the lock on a full disk', () => {
  it('no room for .vault.lock is DISK_FULL, saying the disk is full', async (ctx) => {
    await cryptoReady();
    const mnt = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-full-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,nr_inodes=16', 'tmpfs', mnt], { encoding: 'utf8' });
    if (mounted.status !== 0) {
      console.warn(`skipped: cannot mount a tmpfs here (${mounted.stderr.trim() || mounted.error?.message})`);
      await fs.rm(mnt, { recursive: true, force: true });
      ctx.skip();
    }
    try {
      const dir = path.join(mnt, 'vault');
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'vault.json'), '{}');
      // Use up every free inode.
      for (let i = 0; ; i++) {
        try {
          await fs.writeFile(path.join(mnt, `fill-${i}`), '');
        } catch {
          break;
        }
      }
      await expect(fs.access(path.join(dir, LOCK_FILE))).rejects.toBeDefined();
      await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'DISK_FULL', message: expect.stringMatching(/disk .* is full/) });
    } finally {
      spawnSync('umount', [mnt]);
      await fs.rm(mnt, { recursive: true, force: true });
    }
  });
});
