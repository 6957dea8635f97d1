/**
 * A vault held per call (OpenOptions.lockPerCall) and one held only while
 * unlocked (releaseWhenLocked), within one process: the kernel lock is per
 * open file description, so two Vault objects here exclude each other exactly
 * as two processes do. The multi-process runs are in percall-processes.test.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { code, PASS, pinFormat1 } from './helpers';
import { cleanupsAfterEach, madeVault } from './lock-children';

const NEW_PASS = 'another horse, another staple';
const cleanup = cleanupsAfterEach();

/** A vault opened in `dir` with `opts`, unlocked, closed after the test. */
async function opened(dir: string, state: string, opts: OpenOptions = { lockPerCall: true }, pass = PASS): Promise<Vault> {
  const v = await Vault.open(dir, { stateDir: state, ...opts });
  cleanup(() => v.close());
  await v.unlock(pass);
  return v;
}

const upsert = { mode: 'upsert', source: 'cli' } as const;

/** A hold of `v` that runs until `release` is called; resolves once it runs (the lock taken). */
async function holding(v: Vault): Promise<{ held: Promise<void>; release: () => void }> {
  let release!: () => void;
  let held!: Promise<void>;
  await new Promise<void>((started) => {
    held = v.hold(
      () =>
        new Promise<void>((done) => {
          release = done;
          started();
        }),
    );
  });
  return { held, release };
}

/** True when this process could take the vault's lock right now (and lets it go again). */
async function lockIsFree(dir: string): Promise<boolean> {
  try {
    (await acquireLock(dir))();
    return true;
  } catch {
    return false;
  }
}

describe('a vault held per call', () => {
  it('holds no lock between calls: not after open, not after unlock, not after a write', async () => {
    // Format 1: about format 1's per-call lock in the vault folder, its segments and its rollback alarm (format 2: a restored copy is a notice, the lock in the state folder)
    pinFormat1();
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const v = await Vault.open(dir, { stateDir: state, lockPerCall: true });
    cleanup(() => v.close());
    expect(await lockIsFree(dir)).toBe(true);
    await v.unlock(PASS);
    expect(await lockIsFree(dir)).toBe(true);
    await v.memory.writeFile('/memories/a.md', 'one', upsert);
    expect(await lockIsFree(dir)).toBe(true);
    // While a hold runs the lock is taken; a second opener is kept out.
    await v.hold(async () => expect(await lockIsFree(dir)).toBe(false));
    expect(await lockIsFree(dir)).toBe(true);
  });

  it("sees another holder's writes at its next hold, and its in-memory view only then", async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state);
    const b = await opened(dir, state);
    await a.memory.writeFile('/memories/from-a.md', 'written by a', upsert);
    // A synchronous read answers from memory, as fresh as b's last catch-up.
    expect(b.memory.stat('/memories/from-a.md')).toBeUndefined();
    expect(await b.hold(async () => b.memory.stat('/memories/from-a.md')?.kind)).toBe('file');
    expect(await b.memory.readFile('/memories/from-a.md')).toBe('written by a');
    await b.memory.writeFile('/memories/from-b.md', 'written by b', upsert);
    expect(await a.memory.readFile('/memories/from-b.md')).toBe('written by b');
  });

  it('interleaved writes of two holders, through checkpoints and compaction, all survive and verify clean', async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state, { lockPerCall: true, journalLimit: 3 });
    const b = await opened(dir, state, { lockPerCall: true, journalLimit: 4 });
    await a.setHistoryDepth(0);
    const expected = new Map<string, string>();
    // Big texts rewritten over and over leave segments mostly garbage: the checkpoints compact them away.
    for (let i = 0; i < 60; i++) {
      const v = i % 2 ? a : b;
      const p = `/memories/${i % 2 ? 'a' : 'b'}/k${i % 5}.md`;
      const text = `${i} `.repeat(4000 + i);
      await v.memory.writeFile(p, text, upsert);
      expected.set(p, text);
      // An appended line by read-modify-write, each under the lock with the other's changes caught up.
      await v.exclusive(async (ops) => {
        const now = ops.stat('/memories/shared.md') ? await ops.readFile('/memories/shared.md') : '';
        await ops.writeFile('/memories/shared.md', `${now}line ${i}\n`, upsert);
      });
    }
    for (const v of [a, b]) {
      for (const [p, text] of expected) expect(await v.memory.readFile(p)).toBe(text);
      expect(await v.memory.readFile('/memories/shared.md')).toBe(Array.from({ length: 60 }, (_, i) => `line ${i}\n`).join(''));
      expect(await v.verify()).toEqual({ ok: true, problems: [] });
    }
    await a.close();
    await b.close();
    const fresh = await opened(dir, state, {});
    for (const [p, text] of expected) expect(await fresh.memory.readFile(p)).toBe(text);
    expect(await fresh.verify()).toEqual({ ok: true, problems: [] });
  });

  it('a torn record left at the end of the journal by a killed writer is cut off before the next holder appends', async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state);
    const b = await opened(dir, state);
    await a.memory.writeFile('/memories/first.md', 'first', upsert);
    await b.memory.writeFile('/memories/second.md', 'second', upsert);
    // The first 20 000 bytes of a record promising 50 000: what a writer killed mid-append leaves. Longer than
    // the next record, so appending over it without cutting it off would leave the rest after that record.
    const segments = path.join(dir, 'segments');
    const sizes = await Promise.all((await fs.readdir(segments)).map(async (n) => ({ n, at: (await fs.stat(path.join(segments, n))).mtimeMs })));
    const journal = path.join(segments, sizes.sort((x, y) => y.at - x.at)[0]!.n);
    const torn = Buffer.alloc(20_000);
    torn.writeUInt32LE(50_000, 0);
    torn.writeUInt32LE(~50_000 >>> 0, 4);
    await fs.appendFile(journal, torn);
    await a.memory.writeFile('/memories/third.md', 'third', upsert);
    expect(await b.memory.readFile('/memories/third.md')).toBe('third');
    await a.close();
    await b.close();
    const fresh = await opened(dir, state, {});
    expect(fresh.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/first.md', '/memories/second.md', '/memories/third.md']);
    expect(await fresh.verify()).toEqual({ ok: true, problems: [] });
  });

  it('a segment another holder compacted away is not read from a cached handle: the holder reloads', async () => {
    // Format 1: about format 1's per-call lock in the vault folder, its segments and its rollback alarm (format 2: a restored copy is a notice, the lock in the state folder)
    pinFormat1();
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state, { lockPerCall: true, journalLimit: 2 });
    const b = await opened(dir, state);
    await a.setHistoryDepth(0);
    await a.memory.writeFile('/memories/keep.md', 'kept '.repeat(20_000), upsert);
    // b reads it: b now has that segment open.
    expect(await b.memory.readFile('/memories/keep.md')).toHaveLength(100_000);
    const before = new Set(await fs.readdir(path.join(dir, 'segments')));
    await a.memory.writeFile('/memories/keep.md', 'now '.repeat(30_000), upsert);
    for (let i = 0; i < 12; i++) await a.memory.writeFile('/memories/churn.md', `${i}`.repeat(100_000), upsert);
    const after = new Set(await fs.readdir(path.join(dir, 'segments')));
    expect([...before].filter((s) => !after.has(s)).length).toBeGreaterThan(0);
    expect(await b.memory.readFile('/memories/keep.md')).toBe('now '.repeat(30_000));
    expect(await b.memory.readFile('/memories/churn.md')).toBe('11'.repeat(100_000));
    expect(await b.verify()).toEqual({ ok: true, problems: [] });
  });

  it("keys rotated by another holder end this holder's session at its next hold; a passphrase change does not", async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state);
    const b = await opened(dir, state);
    await a.changePassphrase(PASS, NEW_PASS);
    await b.memory.writeFile('/memories/after-passwd.md', 'b carries on', upsert);
    await expect(b.verifyPassphrase(NEW_PASS)).resolves.toBeUndefined();
    await a.rotateKeys(NEW_PASS);
    const locks: string[] = [];
    b.onChange((c) => locks.push(c.op));
    await expect(b.memory.writeFile('/memories/x.md', 'x', upsert)).rejects.toMatchObject({
      code: 'LOCKED',
      message: "The vault's keys were changed in another window or command, or on another computer; unlock again.",
    });
    expect(b.isUnlocked()).toBe(false);
    expect(locks).toEqual(['lock']);
    expect(await code(b.unlock(PASS))).toBe('BAD_PASSPHRASE');
    await b.unlock(NEW_PASS);
    expect(await b.memory.readFile('/memories/after-passwd.md')).toBe('b carries on');
    await b.memory.writeFile('/memories/x.md', 'x', upsert);
    expect(await a.memory.readFile('/memories/x.md')).toBe('x');
  });

  it('a vault on disk older than the one in memory is ROLLED_BACK, not written over', async () => {
    // Format 1: about format 1's per-call lock in the vault folder, its segments and its rollback alarm (format 2: a restored copy is a notice, the lock in the state folder)
    pinFormat1();
    const { root, dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state);
    await a.memory.writeFile('/memories/one.md', 'one', upsert);
    await a.close();
    const copy = path.join(root, 'copy');
    await fs.cp(dir, copy, { recursive: true });
    const b = await opened(dir, state);
    await b.memory.writeFile('/memories/two.md', 'two', upsert);
    // The older copy put back while b is open (a restore, a sync), lock files aside.
    await fs.rm(path.join(dir, 'segments'), { recursive: true });
    await fs.cp(path.join(copy, 'segments'), path.join(dir, 'segments'), { recursive: true });
    for (const n of (await fs.readdir(copy)).filter((n) => n.startsWith('manifest.'))) await fs.copyFile(path.join(copy, n), path.join(dir, n));
    expect(await code(b.memory.writeFile('/memories/three.md', 'three', upsert))).toBe('ROLLED_BACK');
    expect(b.isUnlocked()).toBe(false);
    // Unlocked again, the rollback is reported as at any unlock.
    expect((await b.unlock(PASS)).rolledBack).toBe(true);
  });

  it('waits for a holder up to lockWaitMs, then fails IN_USE with the usual message; holds nest', async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const a = await opened(dir, state);
    const b = await opened(dir, state, { lockPerCall: true, lockWaitMs: 100 });
    await a.hold(async () => {
      // Nested holds and the vault's own changes run under the outer hold.
      await a.hold(() => a.memory.writeFile('/memories/nested.md', 'n', upsert));
      await expect(b.memory.readFile('/memories/nested.md')).rejects.toMatchObject({ code: 'IN_USE', message: expect.stringMatching(/open in another Mnemo window or mnemo command/) });
    });
    expect(await b.memory.readFile('/memories/nested.md')).toBe('n');
    // A holder that lets go within the wait is waited for.
    const c = await opened(dir, state, { lockPerCall: true, lockWaitMs: 10_000 });
    const { held, release } = await holding(a);
    const waiting = c.memory.writeFile('/memories/waited.md', 'w', upsert);
    setTimeout(release, 200);
    await held;
    await expect(waiting).resolves.toMatchObject({ path: '/memories/waited.md' });
  });

  it('a session-held vault keeps per-call holders out; per-call vaults keep no session holder out', async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const session = await Vault.open(dir, { stateDir: state });
    const percall = await Vault.open(dir, { stateDir: state, lockPerCall: true, lockWaitMs: 50 });
    cleanup(() => percall.close());
    expect(await code(percall.unlock(PASS))).toBe('IN_USE');
    await session.close();
    await percall.unlock(PASS);
    const again = await Vault.open(dir, { stateDir: state });
    await again.close();
  });
});

describe('a vault held only while unlocked (the app)', () => {
  it('lets per-call holders in while locked, keeps them out while unlocked, and re-reads vault.json at unlock', async () => {
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const app = await Vault.open(dir, { stateDir: state, releaseWhenLocked: true });
    cleanup(() => app.close());
    const cli = await opened(dir, state, { lockPerCall: true, lockWaitMs: 100 });
    await cli.memory.writeFile('/memories/while-locked.md', 'from the cli', upsert);
    await app.unlock(PASS);
    expect(await app.memory.readFile('/memories/while-locked.md')).toBe('from the cli');
    expect(await code(cli.memory.writeFile('/memories/no.md', 'no', upsert))).toBe('IN_USE');
    app.lock();
    await cli.memory.writeFile('/memories/after.md', 'after the app locked', upsert);
    // A passphrase changed while the app was locked: the app's unlock reads the new vault.json.
    await cli.changePassphrase(PASS, NEW_PASS);
    expect(await code(app.unlock(PASS))).toBe('BAD_PASSPHRASE');
    await app.unlock(NEW_PASS);
    expect(await app.memory.readFile('/memories/after.md')).toBe('after the app locked');
    await app.close();
    expect(await lockIsFree(dir)).toBe(true);
  });

  it('an unlock waits for a per-call holder to finish, and fails IN_USE past lockWaitMs', async () => {
    // Format 1: about format 1's per-call lock in the vault folder, its segments and its rollback alarm (format 2: a restored copy is a notice, the lock in the state folder)
    pinFormat1();
    const { dir, state } = await madeVault('mnemo-percall-', cleanup);
    const cli = await opened(dir, state);
    const app = await Vault.open(dir, { stateDir: state, releaseWhenLocked: true, lockWaitMs: 100 });
    cleanup(() => app.close());
    await cli.hold(async () => expect(await code(app.unlock(PASS))).toBe('IN_USE'));
    expect(app.isUnlocked()).toBe(false);
    expect(await lockIsFree(dir)).toBe(true);
    const patient = await Vault.open(dir, { stateDir: state, releaseWhenLocked: true });
    cleanup(() => patient.close());
    const { held, release } = await holding(cli);
    const unlocking = patient.unlock(PASS);
    // Past the key derivation (about 150 ms at the floor), so the unlock is waiting for the lock when it is let go.
    setTimeout(release, 600);
    await held;
    await expect(unlocking).resolves.toMatchObject({ rolledBack: false });
    expect(await lockIsFree(dir)).toBe(false);
  });
});
