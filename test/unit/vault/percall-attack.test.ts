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
import { DEEP } from '../../deep';
import { PASS, wrapWrites, pinFormat1 } from './helpers';
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
    // Format 1: about format 1's rollback alarm and its journal file (format 2 has neither: a restored copy is a notice)
    pinFormat1();
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

describe('a journal file replaced under a per-call holder', () => {
  it('a copy put in its place (a restore, a sync tool writing beside and renaming) takes the next write: none goes to the file it replaced', async () => {
    const { dir, state } = await madeVault('mnemo-atk-', cleanup);
    const a = await opened(dir, state);
    const b = await opened(dir, state);
    await a.memory.writeFile('/memories/one.md', 'one', upsert);
    expect(await b.memory.readFile('/memories/one.md')).toBe('one');
    // The journal replaced by a byte-identical copy, written beside and renamed over it.
    await a.hold(async () => {
      const segments = path.join(dir, 'segments');
      for (const n of await fs.readdir(segments)) {
        const file = path.join(segments, n);
        await fs.writeFile(`${file}.copy`, await fs.readFile(file));
        await fs.rename(`${file}.copy`, file);
      }
    });
    await b.memory.writeFile('/memories/two.md', 'two', upsert);
    expect(await a.memory.readFile('/memories/two.md').catch((e: Error) => e.message)).toBe('two');
    await a.memory.writeFile('/memories/three.md', 'three', upsert);
    expect(await b.memory.readFile('/memories/three.md').catch((e: Error) => e.message)).toBe('three');
    await a.close();
    await b.close();
    const fresh = await opened(dir, state, {});
    expect(fresh.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/one.md', '/memories/three.md', '/memories/two.md']);
    expect(await fresh.verify()).toEqual({ ok: true, problems: [] });
  });

  it('an older, different journal that grew past what a holder saw is loaded afresh, not read from the middle of a record, and loses no write', async () => {
    // Format 1: about format 1's rollback alarm and its journal file (format 2 has neither: a restored copy is a notice)
    pinFormat1();
    const { root, dir, state } = await madeVault('mnemo-atk-', cleanup);
    const a = await opened(dir, state);
    await a.memory.writeFile('/memories/one.md', 'one', upsert);
    const copy = path.join(root, 'copy');
    await a.hold(() => fs.cp(dir, copy, { recursive: true, filter: (src) => !src.endsWith('.lock') }));
    const b = await opened(dir, state);
    // b sees a journal with a long record at its end.
    await a.memory.writeFile('/memories/long.md', 'L'.repeat(50_000), upsert);
    expect(await b.memory.readFile('/memories/long.md')).toHaveLength(50_000);
    // The older copy comes back, and c, opening it afresh, writes past where b's view ended.
    await a.hold(async () => {
      await fs.rm(path.join(dir, 'segments'), { recursive: true });
      await fs.cp(path.join(copy, 'segments'), path.join(dir, 'segments'), { recursive: true });
    });
    await a.close();
    const c = await opened(dir, state);
    for (let i = 0; i < 8; i++) await c.memory.writeFile(`/memories/c${i}.md`, `c ${i} `.repeat(2000), upsert);
    // b must not take the middle of c's records for the end of its own: it loads afresh, and its write goes after c's.
    // (c wrote more than b had seen, so the generation does not fall: the step back cannot be told from here.)
    await b.memory.writeFile('/memories/b.md', 'b', upsert);
    for (let i = 0; i < 8; i++) expect(await b.memory.readFile(`/memories/c${i}.md`)).toBe(`c ${i} `.repeat(2000));
    await b.close();
    expect(await c.memory.readFile('/memories/b.md')).toBe('b');
    await c.close();
    const fresh = await opened(dir, state, {});
    expect(fresh.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/b.md', ...Array.from({ length: 8 }, (_, i) => `/memories/c${i}.md`), '/memories/one.md']);
    // The step back was seen at c's unlock (the alarm stays until accepted); nothing else is wrong.
    expect((await fresh.verify()).problems).toEqual([expect.stringMatching(/^vault: rolled back/)]);
  });
});

describe('reads running beside changes in one process', () => {
  it('a read racing a checkpoint that compacts and collects the segment it reads from never reports damage (the app: reads are not queued)', async () => {
    const { dir, state } = await madeVault('mnemo-atk-', cleanup);
    const app = await opened(dir, state, { releaseWhenLocked: true, journalLimit: 1 });
    await app.setHistoryDepth(0);
    await app.memory.writeFile('/memories/keep.md', 'kept '.repeat(20_000), upsert);
    const failures: string[] = [];
    for (let i = 0; i < (DEEP ? 60 : 8); i++) {
      // Reads started at every turn of the event loop while the write (and its checkpoint) runs.
      let done = false;
      const write = app.memory.writeFile('/memories/churn.md', `${i}`.repeat(100_000), upsert).finally(() => (done = true));
      const reads: Promise<unknown>[] = [];
      while (!done) {
        reads.push(app.memory.readFile('/memories/keep.md').then((t) => t.length, (e: Error) => failures.push(e.message)));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await write;
      await Promise.all(reads);
      if (i % 10 === 0) await app.memory.writeFile('/memories/keep.md', `kept ${i} `.repeat(20_000), upsert);
    }
    expect(failures).toEqual([]);
    expect(await app.verify()).toEqual({ ok: true, problems: [] });
  }, DEEP ? 300_000 : 60_000);
});
