import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { type VaultChange } from '../../../electron/core/vault/types';
import { code, FLOOR, PASS, tempVault, type TempVault, pinFormat1 } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const write = (v: Vault, p: string, text: string, mode: 'create' | 'update' | 'upsert' = 'upsert') => v.memory.writeFile(p, text, { mode, source: 'user' });

describe('unlocking', () => {
  it('a wrong passphrase is refused with BAD_PASSPHRASE and the vault stays locked and unchanged', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    await t.vault.close();
    const before = await fs.readFile(path.join(t.dir, 'vault.json'));
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect(await code(t.vault.unlock('wrong passphrase'))).toBe('BAD_PASSPHRASE');
    expect(t.vault.isUnlocked()).toBe(false);
    expect(await fs.readFile(path.join(t.dir, 'vault.json'))).toEqual(before);
    await t.vault.unlock(PASS);
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('alpha');
  });

  it('the recovery key unlocks like the passphrase; a malformed one is INVALID', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    t.vault.lock();
    expect(await code(t.vault.unlockWithRecoveryKey('not a key'))).toBe('INVALID');
    expect(await code(t.vault.unlockWithRecoveryKey('A'.repeat(52)))).toBe('BAD_PASSPHRASE');
    await t.vault.unlockWithRecoveryKey(t.recoveryKey.toLowerCase());
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('alpha');
  });

  it('lock drops the keys: every read and write fails with LOCKED until unlock', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    const changes: VaultChange[] = [];
    t.vault.onChange((c) => changes.push(c));
    t.vault.lock();
    expect(changes).toEqual([{ op: 'lock' }]);
    expect(await code(t.vault.memory.readFile('/memories/a.md'))).toBe('LOCKED');
    expect(await code(write(t.vault, '/memories/b.md', 'b'))).toBe('LOCKED');
    expect(() => t!.vault.memory.list('/memories', 1)).toThrow(/locked/);
    expect(await code(t.vault.internal.get('settings'))).toBe('LOCKED');
    await t.vault.unlock(PASS);
    expect(t.vault.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/a.md']);
  });

  it('a vault is opened by one process at a time, and a lock file left by a dead owner does not keep it shut', async () => {
    t = await tempVault();
    expect(await code(Vault.open(t.dir, { stateDir: t.stateDir }))).toBe('IN_USE');
    await t.vault.close();
    await fs.writeFile(path.join(t.dir, '.lock'), '999999999\n');
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock(PASS);
    expect(t.vault.isUnlocked()).toBe(true);
  });

  it('create refuses a directory that already holds a vault, and open reports a missing one', async () => {
    t = await tempVault();
    expect(await code(Vault.create(t.dir, 'another passphrase', { kdf: FLOOR, stateDir: t.stateDir }))).toBe('ALREADY_EXISTS');
    expect(await code(Vault.open(path.join(t.root, 'nothing-here')))).toBe('NO_VAULT');
    expect(await code(Vault.create(path.join(t.root, 'x'), '', { kdf: FLOOR }))).toBe('INVALID');
  });

  it('a restored older copy of the vault is reported as rolled back', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'one');
    await t.vault.close();
    const copy = path.join(t.root, 'copy');
    await fs.cp(t.dir, copy, { recursive: true });
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect(await t.vault.unlock(PASS)).toEqual({ rolledBack: false, damaged: [] });
    await write(t.vault, '/memories/a.md', 'two');
    await write(t.vault, '/memories/b.md', 'three');
    await t.vault.close();
    await fs.rm(t.dir, { recursive: true });
    await fs.cp(copy, t.dir, { recursive: true });
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    const report = await t.vault.unlock(PASS);
    // Format 1 raises its rollback alarm. Format 2 deliberately does not (a sync engine may deliver an older copy
    // first): it says this computer's own files are older, goes on as a new computer, and reads what the folder holds.
    if (t.vault.internal.scheme?.() === 2) expect(report).toMatchObject({ rolledBack: false, noticeKeys: [{ key: 'errors:notice.ownFilesOlder' }] });
    else expect(report.rolledBack).toBe(true);
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('one');
  });
});

describe('memory files', () => {
  it('write modes, conflicts and parents behave as documented', async () => {
    t = await tempVault();
    const v = t.vault;
    const meta = await write(v, '/memories/notes/a.md', 'alpha', 'create');
    expect(meta).toMatchObject({ kind: 'file', path: '/memories/notes/a.md', size: 5, version: 1 });
    expect(v.memory.stat('/memories/notes')?.kind).toBe('dir');
    expect(await code(write(v, '/memories/notes/a.md', 'x', 'create'))).toBe('EXISTS');
    expect(await code(write(v, '/memories/none.md', 'x', 'update'))).toBe('NOT_FOUND');
    expect(await code(v.memory.writeFile('/memories/notes/a.md', 'x', { mode: 'update', expectedVersion: 7, source: 'user' }))).toBe('CONFLICT');
    expect(await code(write(v, '/memories/notes/a.md/b.md', 'x'))).toBe('NOT_A_DIRECTORY');
    expect(await code(write(v, '/memories/notes', 'x'))).toBe('NOT_A_FILE');
    expect(await v.memory.readFile('/memories/notes/a.md')).toBe('alpha');
  });

  it('listing goes only as deep as asked and is sorted by path', async () => {
    t = await tempVault();
    for (const p of ['/memories/b.md', '/memories/a/x.md', '/memories/a/deep/y.md', '/memories/c/z.md']) await write(t.vault, p, p);
    expect(t.vault.memory.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/a', '/memories/b.md', '/memories/c']);
    expect(t.vault.memory.list('/memories', 2).map((e) => e.path)).toEqual(['/memories/a', '/memories/a/deep', '/memories/a/x.md', '/memories/b.md', '/memories/c', '/memories/c/z.md']);
    expect(t.vault.memory.list('/memories', Infinity)).toHaveLength(7);
  });

  it('rename moves a folder with its files and history; delete is recursive and keeps history', async () => {
    t = await tempVault();
    const v = t.vault;
    await write(v, '/memories/a/one.md', 'v1');
    await write(v, '/memories/a/one.md', 'v2');
    await write(v, '/memories/a/sub/two.md', 'two');
    expect(await code(v.memory.rename('/memories/a', '/memories/a/sub/inside', 'user'))).toBe('INVALID');
    expect(await code(v.memory.rename('/memories/a', '/memories/a/sub', 'user'))).toBe('EXISTS');
    await v.memory.rename('/memories/a', '/memories/b', 'user');
    expect(v.memory.stat('/memories/a')).toBeUndefined();
    expect(await v.memory.readFile('/memories/b/sub/two.md')).toBe('two');
    expect(v.history('/memories/b/one.md').map((h) => h.version)).toEqual([1]);
    await v.memory.remove('/memories/b', 'user');
    expect(v.memory.list('/memories', Infinity)).toEqual([]);
    expect(v.memory.totalSize()).toBe(0);
    expect(await v.readVersion('/memories/b/one.md', 2)).toBe('v2');
    expect(await code(v.memory.remove('/memories', 'user'))).toBe('INVALID');
    const restored = await v.restore('/memories/b/one.md', 1, 'user');
    expect(restored.version).toBe(3);
    expect(await v.memory.readFile('/memories/b/one.md')).toBe('v1');
  });

  it('history keeps the last N versions and survives reopening', async () => {
    t = await tempVault();
    await t.vault.setHistoryDepth(3);
    for (let i = 1; i <= 6; i++) await write(t.vault, '/memories/h.md', `version ${i}`);
    expect(t.vault.history('/memories/h.md').map((h) => h.version)).toEqual([3, 4, 5]);
    const v = await t.reopen();
    expect(v.historyDepth()).toBe(3);
    expect(await v.readVersion('/memories/h.md', 4)).toBe('version 4');
    expect(await code(v.readVersion('/memories/h.md', 1))).toBe('NOT_FOUND');
  });

  it('concurrent writes through exclusive() never lose an update', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/counter.md', '');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t!.vault.exclusive(async (ops) => {
          const text = await ops.readFile('/memories/counter.md');
          await ops.writeFile('/memories/counter.md', text + `${i}\n`, { mode: 'update', source: 'claude' });
        }),
      ),
    );
    expect((await t.vault.memory.readFile('/memories/counter.md')).split('\n').filter(Boolean)).toHaveLength(20);
  });

  it('change listeners hear each committed change with its source', async () => {
    t = await tempVault();
    const seen: VaultChange[] = [];
    t.vault.onChange((c) => seen.push(c));
    await t.vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'claude' });
    await t.vault.memory.rename('/memories/a.md', '/memories/b.md', 'user');
    await t.vault.memory.remove('/memories/b.md', 'cli');
    expect(seen).toEqual([
      { op: 'write', path: '/memories/a.md', version: 1, source: 'claude', created: true },
      { op: 'rename', path: '/memories/a.md', newPath: '/memories/b.md', source: 'user' },
      { op: 'delete', path: '/memories/b.md', source: 'cli' },
    ]);
  });

  it('thousands of writes survive checkpoints and reopening', async () => {
    t = await tempVault();
    for (let i = 0; i < 4500; i++) await write(t.vault, `/memories/d${(i % 900) % 7}/f${i % 900}.md`, `text ${i}`);
    const v = await t.reopen();
    expect(v.memory.list('/memories', Infinity).filter((e) => e.kind === 'file')).toHaveLength(900);
    expect(await v.memory.readFile(`/memories/d${99 % 7}/f99.md`)).toBe('text 3699');
    expect((await v.verify()).ok).toBe(true);
  }, 120_000);
});

describe('internal store and keys', () => {
  it('internal values are separate from memories and persist', async () => {
    t = await tempVault();
    await t.vault.internal.putJSON('settings', { model: 'm' });
    await t.vault.internal.put('secrets/api-key', new TextEncoder().encode('sk-test'));
    expect(t.vault.memory.list('/memories', Infinity)).toEqual([]);
    expect(await code(t.vault.internal.put('../escape', new Uint8Array(1)))).toBe('INVALID');
    const v = await t.reopen();
    expect(await v.internal.getJSON('settings')).toEqual({ model: 'm' });
    expect(v.internal.keys('secrets/')).toEqual(['secrets/api-key']);
    await v.internal.delete('secrets/api-key');
    expect(await v.internal.get('secrets/api-key')).toBeUndefined();
  });

  it('changing the passphrase re-wraps only; the old one stops working, the recovery key still does', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    expect(await code(t.vault.changePassphrase('wrong', 'new passphrase here'))).toBe('BAD_PASSPHRASE');
    await t.vault.changePassphrase(PASS, 'new passphrase here');
    t.vault.lock();
    expect(await code(t.vault.unlock(PASS))).toBe('BAD_PASSPHRASE');
    await t.vault.unlock('new passphrase here');
    t.vault.lock();
    await t.vault.unlockWithRecoveryKey(t.recoveryKey);
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('alpha');
  });

  it('rotating keys re-encrypts everything and replaces the recovery key', async () => {
    // Format 1: checks that format 1's segments/ files are all rewritten under the new keys (format 2's rotation: rotate2 tests)
    pinFormat1();
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'one');
    await write(t.vault, '/memories/a.md', 'two');
    await write(t.vault, '/memories/gone/x.md', 'x');
    await t.vault.memory.remove('/memories/gone', 'user');
    await t.vault.internal.putJSON('settings', { a: 1 });
    const before = new Set(await fs.readdir(path.join(t.dir, 'segments')));
    expect(await code(t.vault.rotateKeys('wrong'))).toBe('BAD_PASSPHRASE');
    const newKey = await t.vault.rotateKeys(PASS);
    const after = await fs.readdir(path.join(t.dir, 'segments'));
    expect(after.some((s) => before.has(s))).toBe(false);
    t.vault.lock();
    expect(await code(t.vault.unlockWithRecoveryKey(t.recoveryKey))).toBe('BAD_PASSPHRASE');
    await t.vault.unlockWithRecoveryKey(newKey);
    const v = await t.reopen();
    expect(await v.memory.readFile('/memories/a.md')).toBe('two');
    expect(await v.readVersion('/memories/a.md', 1)).toBe('one');
    expect(await v.readVersion('/memories/gone/x.md', 1)).toBe('x');
    expect(v.memory.stat('/memories/gone')).toBeUndefined();
    expect(await v.internal.getJSON('settings')).toEqual({ a: 1 });
    expect((await v.verify()).ok).toBe(true);
  });

  it('segments that are mostly old versions are compacted away, keeping every live memory readable', async () => {
    t = await tempVault();
    await t.vault.close();
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir, journalLimit: 6 });
    await t.vault.unlock(PASS);
    const v = t.vault;
    await v.setHistoryDepth(1);
    await write(v, '/memories/keep.md', 'written once, early');
    const big = (i: number) => `version ${i}\n` + 'x'.repeat(120_000 + i);
    for (let i = 0; i < 60; i++) {
      await write(v, '/memories/big.md', big(i));
      // A small memory written once in each segment would keep every segment alive without compaction.
      if (i % 5 === 0) await write(v, `/memories/small-${i}.md`, `small ${i}`);
    }
    const segmentBytes = async () => {
      let total = 0;
      for (const f of await fs.readdir(path.join(t!.dir, 'segments'))) total += (await fs.stat(path.join(t!.dir, 'segments', f))).size;
      return total;
    };
    // 60 writes of ~120 KB went through the journal; with compaction only a few of them remain on disk.
    expect(await segmentBytes()).toBeLessThan(25 * 120_000);
    for (let i = 0; i < 60; i += 5) expect(await v.memory.readFile(`/memories/small-${i}.md`)).toBe(`small ${i}`);
    expect(await v.memory.readFile('/memories/keep.md')).toBe('written once, early');
    expect(await v.memory.readFile('/memories/big.md')).toBe(big(59));
    expect(await v.readVersion('/memories/big.md', 59)).toBe(big(58));
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    const again = await t.reopen();
    expect(await again.memory.readFile('/memories/keep.md')).toBe('written once, early');
    expect(await again.verify()).toEqual({ ok: true, problems: [] });
  });

  it('a crash between moving the old manifest aside and renaming the new one into place loses nothing and is not reported as damage', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'before the checkpoint');
    let v = await t.reopen();
    await write(v, '/memories/b.md', 'after the checkpoint, in the journal');
    v.lock();
    await v.close();
    // The checkpoint's new manifest is durable as .next before the current one moves aside.
    const manifest = (await fs.readdir(t.dir)).find((f) => f.startsWith('manifest.') && !f.endsWith('.prev'))!;
    await fs.rename(path.join(t.dir, manifest), path.join(t.dir, `${manifest}.next`));
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect(await t.vault.unlock(PASS)).toEqual({ rolledBack: false, damaged: [] });
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('before the checkpoint');
    expect(await t.vault.memory.readFile('/memories/b.md')).toBe('after the checkpoint, in the journal');
    await write(t.vault, '/memories/c.md', 'the next change writes a fresh manifest');
    v = await t.reopen();
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    expect(await v.memory.readFile('/memories/c.md')).toBe('the next change writes a fresh manifest');
  });

  it('files left by an interrupted checkpoint or rotation are ignored by verify and tidied on the next checkpoint', async () => {
    // Format 1: the files of format 1's checkpoint and rotation
    pinFormat1();
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    const leftover = path.join(t.dir, 'segments', 'ab'.repeat(16));
    await fs.writeFile(leftover, 'half-written segment from a crash');
    await fs.writeFile(path.join(t.dir, `manifest.${'cd'.repeat(16)}`), 'half-written manifest');
    expect(await t.vault.verify()).toEqual({ ok: true, problems: [] });
    const v = await t.reopen();
    expect(await v.memory.readFile('/memories/a.md')).toBe('alpha');
    await expect(fs.access(leftover)).rejects.toThrow();
    // The current manifest and its fallback stay; the leftover of another key epoch is gone.
    expect((await fs.readdir(t.dir)).filter((f) => f.startsWith('manifest.')).every((f) => !f.includes('cd'.repeat(16)))).toBe(true);
  });

  it('a header asking for a KDF below the floor is refused even with a valid checksum', async () => {
    // Format 1: edits a version-1 header
    pinFormat1();
    t = await tempVault();
    await t.vault.close();
    const { parseHeader, serializeHeader } = await import('../../../electron/core/vault/header');
    const file = path.join(t.dir, 'vault.json');
    const h = parseHeader(new Uint8Array(await fs.readFile(file)));
    const weak = { ...h, slots: h.slots.map((s) => (s.type === 'passphrase' ? { ...s, kdf: { ...s.kdf, memlimit: 8 * 1024 * 1024 } } : s)) };
    await fs.writeFile(file, serializeHeader(weak));
    expect(await code(Vault.open(t.dir, { stateDir: t.stateDir }))).toBe('BAD_HEADER');
    t.vault = await Vault.open(path.join(t.root, 'x').replace('x', 'vault'), { stateDir: t.stateDir }).catch(() => t!.vault);
  });
});
