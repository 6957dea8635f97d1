/**
 * Attacks on vaults shared per call (OpenOptions.lockPerCall) by several
 * holders: a checkpoint that fails half-way (a full disk), and the rollback
 * alarm with several holders each remembering the generation they saw.
 * Two Vault objects in one process exclude each other as two processes do.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { PASS, wrapWrites } from './helpers';
import { cleanupsAfterEach, madeVault } from './lock-children';

const cleanup = cleanupsAfterEach();
const upsert = { mode: 'upsert', source: 'cli' } as const;

async function opened(dir: string, state: string, opts: OpenOptions = { lockPerCall: true }): Promise<Vault> {
  const v = await Vault.open(dir, { stateDir: state, ...opts });
  cleanup(() => v.close());
  await v.unlock(PASS);
  return v;
}

/** The real disk; while `failManifest` is set, writing a manifest's temp file fails with ENOSPC (the journal's header still fits). */
function manifestFails(): { fs: ReturnType<typeof wrapWrites>; fail: { on: boolean } } {
  const fail = { on: false };
  const wrapped = wrapWrites(async (real, buf, pos) => {
    // A manifest is written whole at offset 0 into a `.tmp-` file: far bigger than a segment header.
    if (fail.on && pos === 0 && buf.length > 200) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
    return real(buf, pos);
  });
  return { fs: wrapped, fail };
}

describe('a checkpoint cut off by a full disk', () => {
  it('acknowledges no write into a journal that no manifest names: nothing is lost when the app locks and others carry on', async () => {
    const { dir, state } = await madeVault('mnemo-atk-', cleanup);
    const disk = manifestFails();
    // The app: holds the vault while unlocked, so its store carries on across writes (no reload in between).
    const app = await opened(dir, state, { releaseWhenLocked: true, journalLimit: 2, fs: disk.fs });
    await app.memory.writeFile('/memories/one.md', 'one', upsert);
    await app.memory.writeFile('/memories/two.md', 'two', upsert);
    // The journal is full: the next write checkpoints first, and the manifest does not fit.
    disk.fail.on = true;
    await expect(app.memory.writeFile('/memories/three.md', 'three', upsert)).rejects.toMatchObject({ code: 'DISK_FULL' });
    disk.fail.on = false;
    // Space is back; the app acknowledges a write, then locks (auto-lock) without a checkpoint.
    await app.memory.writeFile('/memories/four.md', 'four', upsert);
    app.lock();
    // A per-call holder sees it, and writes.
    const cli = await opened(dir, state);
    expect(await cli.memory.readFile('/memories/four.md').catch((e: Error) => e.message)).toBe('four');
    await cli.memory.writeFile('/memories/five.md', 'five', upsert);
    await cli.close();
    // Unlocked again, the app holds everything acknowledged.
    expect((await app.unlock(PASS)).rolledBack).toBe(false);
    expect(app.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/five.md', '/memories/four.md', '/memories/one.md', '/memories/two.md']);
    expect(await app.verify()).toEqual({ ok: true, problems: [] });
  });
});

describe('the rollback alarm with several holders', () => {
  it('a rollback accepted in the app is not raised again by a per-call holder that had seen the newer generation', async () => {
    const { root, dir, state } = await madeVault('mnemo-atk-', cleanup);
    const cli = await opened(dir, state);
    await cli.memory.writeFile('/memories/one.md', 'one', upsert);
    const copy = path.join(root, 'copy');
    await cli.hold(() => fs.cp(dir, copy, { recursive: true, filter: (src) => !src.endsWith('.lock') }));
    for (let i = 0; i < 5; i++) await cli.memory.writeFile(`/memories/later${i}.md`, `${i}`, upsert);
    // The older copy comes back (a restore, a sync) while the cli is open.
    await cli.hold(async () => {
      await fs.rm(path.join(dir, 'segments'), { recursive: true });
      await fs.cp(path.join(copy, 'segments'), path.join(dir, 'segments'), { recursive: true });
      for (const n of (await fs.readdir(copy)).filter((n) => n.startsWith('manifest.'))) await fs.copyFile(path.join(copy, n), path.join(dir, n));
    });
    const app = await Vault.open(dir, { stateDir: state, releaseWhenLocked: true });
    cleanup(() => app.close());
    expect((await app.unlock(PASS)).rolledBack).toBe(true);
    await app.acceptRollback();
    app.lock();
    // The cli's next call finds the older vault and locks; its user unlocks it again.
    await expect(cli.memory.writeFile('/memories/x.md', 'x', upsert)).rejects.toMatchObject({ code: 'ROLLED_BACK' });
    expect((await cli.unlock(PASS)).rolledBack).toBe(false);
    await cli.memory.writeFile('/memories/after.md', 'after', upsert);
    await cli.close();
    // Accepted once: the app is not told again.
    expect((await app.unlock(PASS)).rolledBack).toBe(false);
  });
});
