import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { FIXTURE } from '../../fixtures/vault-v1-contents';
import { code, listFiles, tempVault, type TempVault, pinFormat1 } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const segmentBytes = async (dir: string) => {
  let n = 0;
  for (const f of await listFiles(path.join(dir, 'segments'))) n += (await fs.stat(path.join(dir, 'segments', f))).size;
  return n;
};

describe('provenance', () => {
  it('every version records who wrote it (Claude with conversation and turn, the user, an import, a restore), kept across checkpoint and reopen', async () => {
    t = await tempVault();
    const v = t.vault;
    await v.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'claude', by: { kind: 'claude', conversationId: 'c0ffee00c0ffee00', turn: 3 } });
    await v.memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'user' });
    await v.restore('/memories/a.md', 1, 'user');
    await v.importFiles([{ path: '/memories/b.md', text: 'imported' }], { overwrite: false, source: 'cli', maxFileBytes: 1e6, maxTotalBytes: 1e7 });
    const expected = [
      { version: 1, current: false, by: { kind: 'claude', conversationId: 'c0ffee00c0ffee00', turn: 3 } },
      { version: 2, current: false, by: { kind: 'user' } },
      { version: 3, current: true, by: { kind: 'restore', fromVersion: 1 } },
    ];
    expect(v.versions('/memories/a.md')).toMatchObject(expected);
    expect(v.writer('/memories/b.md')).toEqual({ kind: 'import' });
    // Once only in the journal, once from a checkpointed manifest.
    let again = await t.reopen();
    expect(again.versions('/memories/a.md')).toMatchObject(expected);
    await again.setHistoryDepth(20);
    again = await t.reopen();
    expect(again.versions('/memories/a.md')).toMatchObject(expected);
    expect(again.writer('/memories/b.md')).toEqual({ kind: 'import' });
  });

  it('rotating the keys keeps every version’s author and every deletion record', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'claude', by: { kind: 'claude', conversationId: 'c0ffee00c0ffee00', turn: 1 } });
    await t.vault.memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'user' });
    await t.vault.memory.writeFile('/memories/gone.md', 'gone', { mode: 'create', source: 'user' });
    await t.vault.memory.remove('/memories/gone.md', 'claude', { kind: 'claude', conversationId: 'c0ffee00c0ffee00', turn: 4 });
    const versions = t.vault.versions('/memories/a.md');
    const trash = t.vault.trash();
    await t.vault.rotateKeys('correct horse battery staple');
    expect(t.vault.versions('/memories/a.md')).toEqual(versions);
    expect(t.vault.trash()).toEqual(trash);
    const again = await t.reopen();
    expect(again.trash()).toEqual(trash);
  });

  it('the history of a memory includes its current version, last', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'user' });
    await t.vault.memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'user' });
    expect(t.vault.versions('/memories/a.md').map((e) => [e.version, e.current])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it('versions and deletions written before provenance existed read as unknown (the frozen v1 vault)', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-v1-'));
    try {
      const dir = path.join(root, 'vault');
      await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
      const vault = await Vault.open(dir, { stateDir: path.join(root, 'state') });
      await vault.unlock(FIXTURE.passphrase);
      const versions = vault.versions('/memories/user/preferences.md');
      expect(versions.map((e) => e.by)).toEqual([undefined, undefined]);
      expect(vault.trash()).toEqual([{ path: '/memories/deleted.md', versions: [expect.objectContaining({ version: 1, current: false })] }]);
      expect(vault.trash()[0]!.versions[0]!.by).toBeUndefined();
      await vault.close();
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

describe('trash', () => {
  it('a deleted memory is listed with when and by whom it was deleted and its versions, also after reopen', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/d/x.md', 'x1', { mode: 'create', source: 'user' });
    await t.vault.memory.writeFile('/memories/d/x.md', 'x2', { mode: 'update', source: 'claude' });
    const before = Date.now();
    await t.vault.memory.remove('/memories/d', 'claude', { kind: 'claude', conversationId: 'abcdabcdabcdabcd', turn: 1 });
    const check = (v: Vault) => {
      const [entry, ...rest] = v.trash();
      expect(rest).toEqual([]);
      expect(entry).toMatchObject({ path: '/memories/d/x.md', by: { kind: 'claude', conversationId: 'abcdabcdabcdabcd', turn: 1 } });
      expect(entry!.deleted).toBeGreaterThanOrEqual(before);
      expect(entry!.versions.map((e) => [e.version, e.by?.kind])).toEqual([
        [1, 'user'],
        [2, 'claude'],
      ]);
    };
    check(t.vault);
    check(await t.reopen());
    await t.vault.setHistoryDepth(20);
    check(await t.reopen());
  });

  it('restoring a deleted memory writes a new version recorded as a restore and takes it out of the trash', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/x.md', 'first', { mode: 'create', source: 'user' });
    await t.vault.memory.writeFile('/memories/x.md', 'second', { mode: 'update', source: 'user' });
    await t.vault.memory.remove('/memories/x.md', 'user');
    const meta = await t.vault.restoreDeleted('/memories/x.md', 1);
    expect(meta.version).toBe(3);
    expect(await t.vault.memory.readFile('/memories/x.md')).toBe('first');
    expect(t.vault.writer('/memories/x.md')).toEqual({ kind: 'restore', fromVersion: 1 });
    expect(t.vault.trash()).toEqual([]);
    const again = await t.reopen();
    expect(again.trash()).toEqual([]);
    expect(again.versions('/memories/x.md').map((e) => e.version)).toEqual([1, 2, 3]);
  });

  it('restoring refuses clearly when a live memory now occupies the path, and changes nothing', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/x.md', 'old', { mode: 'create', source: 'user' });
    await t.vault.memory.remove('/memories/x.md', 'user');
    await t.vault.memory.mkdir('/memories/x.md', 'user');
    const err = await t.vault.restoreDeleted('/memories/x.md').catch((e: Error & { code: string }) => e);
    expect(err).toMatchObject({ code: 'EXISTS' });
    expect((err as Error).message).toMatch(/in use by another memory or folder now\. Rename or delete that one, then restore again\./);
    expect(t.vault.memory.stat('/memories/x.md')?.kind).toBe('dir');
    expect(await code(t.vault.restoreDeleted('/memories/never.md'))).toBe('NOT_FOUND');
  });

  it('emptying the trash forgets the deleted versions, removes their sealed bytes from disk, and survives reopen', async () => {
    // Format 1: counts the bytes of format 1's segment files
    pinFormat1();
    t = await tempVault();
    const bulky = Array.from({ length: 6000 }, (_, i) => `line ${i} ${Math.random().toString(36)}`).join('\n');
    await t.vault.memory.writeFile('/memories/keep.md', 'keep me', { mode: 'create', source: 'user' });
    await t.vault.memory.writeFile('/memories/gone.md', bulky, { mode: 'create', source: 'user' });
    await t.vault.memory.writeFile('/memories/gone.md', bulky + '\nmore', { mode: 'update', source: 'user' });
    await t.vault.memory.remove('/memories/gone.md', 'user');
    const before = await segmentBytes(t.dir);
    expect(await t.vault.emptyTrash()).toBe(1);
    expect(t.vault.trash()).toEqual([]);
    expect(await code(t.vault.readVersion('/memories/gone.md', 1))).toBe('NOT_FOUND');
    // Two versions of ~100 KB each were sealed; the segments lost at least that much.
    expect(before - (await segmentBytes(t.dir))).toBeGreaterThan(2 * bulky.length);
    const again = await t.reopen();
    expect(again.trash()).toEqual([]);
    expect(await again.memory.readFile('/memories/keep.md')).toBe('keep me');
    expect((await again.verify()).problems).toEqual([]);
  });

  it('emptying the trash leaves a path that holds a memory again alone, and empties only what it is asked to', async () => {
    t = await tempVault();
    for (const p of ['/memories/a.md', '/memories/b.md']) {
      await t.vault.memory.writeFile(p, 'text', { mode: 'create', source: 'user' });
      await t.vault.memory.remove(p, 'user');
    }
    expect(await t.vault.emptyTrash(['/memories/b.md'])).toBe(1);
    expect(t.vault.trash().map((e) => e.path)).toEqual(['/memories/a.md']);
    expect(await t.vault.emptyTrash()).toBe(1);
    expect(await t.vault.emptyTrash()).toBe(0);
  });
});
