/**
 * Attacks the patched view of format 2 (sync/view.ts: an own write, delete or move of one file patches the view in
 * place and carries the total size over) with the cases its conditions are closest to, each step compared with a view
 * built from scratch of the same state (list, stat, versions, trash, conflicts, total), MNEMO_VIEW_CHECK on or off:
 * a file and a folder of one name made on two computers (the file shown aside), writes over concurrent heads (a merge:
 * patched; a conflict: built again), delete and re-create, a move onto a trashed path, 1,000 files in one folder with
 * names that sort next to each other, the total at the size limit against a fresh open, writes around a key rotation
 * and a passphrase change, and a folder that only one file kept alive. These held; they stay as guards.
 */
import { expect, it } from 'vitest';
import { SyncView } from '../../../electron/core/vault/sync/view';
import { VaultError } from '../../../electron/core/vault/types';
import { session, syncAll, vaultRoom, type Computer } from './carry-vaults';
import { carryHeader } from './rot-world';
import { PASS } from './two-computers';

const { computers, reopen } = vaultRoom('attack-view-held');
const user = { source: 'user' } as const;
type Reader = ConstructorParameters<typeof SyncView>[1];

function shownBy(v: SyncView): unknown {
  return {
    list: v.list('/memories', 100),
    groups: [...v.tree.groups.keys()].sort().map((p) => ({ p, stat: v.stat(p), versions: v.versions(p) })),
    trash: v.trashed(),
    conflicts: v.conflicts(),
    total: v.totalSize(),
  };
}

/** `c`'s view equals one built from scratch; returns whether it was patched. */
function same(c: Computer): boolean {
  const s = session(c.v);
  const fresh = new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader);
  expect(JSON.stringify(shownBy(s.view))).toBe(JSON.stringify(shownBy(fresh)));
  return s.view.patched;
}

it('a file shown aside of a folder of its name: writes, moves and deletes around it', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.memory.writeFile('/memories/a', 'file a', { mode: 'create', ...user });
  await b.v.memory.writeFile('/memories/a/b.md', 'b under a', { mode: 'create', ...user });
  await syncAll([a, b]);
  const aside = a.v.memory.list('/memories', 1).find((e) => e.path.startsWith('/memories/a.conflict-'))!.path;
  expect(aside).toBeDefined();
  await a.v.memory.writeFile(aside, 'file a, again', { mode: 'update', ...user });
  same(a);
  await a.v.memory.writeFile('/memories/a/b.md', 'b again', { mode: 'update', ...user });
  expect(same(a)).toBe(true);
  await a.v.memory.remove('/memories/a/b.md', 'user');
  same(a);
  await a.v.memory.rename(aside, '/memories/a/moved', 'user');
  same(a);
  await a.v.memory.writeFile('/memories/a/moved', 'moved, written', { mode: 'update', ...user });
  expect(same(a)).toBe(true);
  await a.v.memory.rename('/memories/a/moved', '/memories/a.md', 'user');
  same(a);
  await syncAll([a, b]);
  same(b);
  expect(b.v.memory.totalSize()).toBe(a.v.memory.totalSize());
});

it('writes over concurrent heads: a merge is patched, a conflict is built again, both as from scratch', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  const lines = (...l: string[]) => l.join('\n') + '\n';
  const base = ['one', 'two', 'three', 'four', 'five'];
  await a.v.memory.writeFile('/memories/f.md', lines(...base), { mode: 'create', ...user });
  await syncAll([a, b]);
  await a.v.memory.writeFile('/memories/f.md', lines('one (A)', ...base.slice(1)), { mode: 'update', ...user });
  await b.v.memory.writeFile('/memories/f.md', lines(...base.slice(0, 4), 'five (B)'), { mode: 'update', ...user });
  await syncAll([a, b]);
  expect(session(a.v).view.resolve('/memories/f.md')?.kind).toBe('merge');
  same(a);
  await a.v.memory.writeFile('/memories/f.md', lines('one (A)', 'two', 'three', 'four', 'five (B)', 'six'), { mode: 'update', ...user });
  expect(same(a)).toBe(true);
  await syncAll([a, b]);
  // Overlapping edits: a conflict; the write over it settles it (names the losers) and is not patched.
  await a.v.memory.writeFile('/memories/f.md', 'A only', { mode: 'update', ...user });
  await b.v.memory.writeFile('/memories/f.md', 'B only', { mode: 'update', ...user });
  await syncAll([a, b]);
  expect(session(a.v).view.resolve('/memories/f.md')?.kind).toBe('conflict');
  await a.v.memory.writeFile('/memories/f.md', 'settled', { mode: 'update', ...user });
  expect(same(a)).toBe(false);
  // A delete from B met by A's edit: A writes again (answering the delete), then deletes, re-creates, moves over the trash.
  await syncAll([a, b]);
  await b.v.memory.remove('/memories/f.md', 'user');
  await a.v.memory.writeFile('/memories/f.md', 'edited meanwhile', { mode: 'update', ...user });
  await syncAll([a, b]);
  expect(a.v.conflicts().length).toBeGreaterThan(0);
  await a.v.memory.writeFile('/memories/f.md', 'answered', { mode: 'update', ...user });
  same(a);
  await a.v.memory.remove('/memories/f.md', 'user');
  expect(same(a)).toBe(true);
  await a.v.memory.writeFile('/memories/f.md', 'again', { mode: 'create', ...user });
  expect(same(a)).toBe(false);
  await a.v.memory.writeFile('/memories/g.md', 'g', { mode: 'create', ...user });
  await a.v.memory.remove('/memories/g.md', 'user');
  await a.v.memory.rename('/memories/f.md', '/memories/g.md', 'user');
  expect(same(a)).toBe(false);
  await syncAll([a, b]);
  same(a);
  same(b);
});

it('1,000 files in one folder, names next to each other: single changes patch, as from scratch', async () => {
  const [a] = (await computers(1)) as [Computer];
  const names = (i: number) => [`/memories/n/${String(i).padStart(4, '0')}.md`, `/memories/n/${String(i).padStart(4, '0')}.md.`, `/memories/n/${String(i).padStart(4, '0')}-md`];
  const items = Array.from({ length: 1000 }, (_, i) => ({ path: names(i >> 1)[i & 1]!, text: `file ${i}` }));
  await a.v.importFiles(items, { overwrite: false, source: 'user', maxFileBytes: 1e6, maxTotalBytes: 1e8 });
  let patched = 0;
  for (let k = 0; k < 40; k++) {
    const i = (k * 37) % 500;
    const [p, q, r] = names(i);
    try {
      if (k % 4 === 0) await a.v.memory.writeFile(p!, `rewritten ${k}`, { mode: 'upsert', ...user });
      else if (k % 4 === 1) await a.v.memory.remove(q!, 'user');
      else if (k % 4 === 2) await a.v.memory.rename(p!, r!, 'user');
      else await a.v.memory.writeFile(q!, `again ${k}`, { mode: 'upsert', ...user });
    } catch (e) {
      if (!(e instanceof VaultError)) throw e;
    }
    if (session(a.v).view.patched) patched++;
    // (MNEMO_VIEW_CHECK compares every patched view; this also with it off, every few changes.)
    if (k % 8 === 7) same(a);
  }
  expect(patched).toBeGreaterThan(20);
  expect(a.v.memory.list('/memories/n', 1).length).toBeGreaterThan(900);
}, 120_000);

it('the total at the size limit: refused and admitted as a fresh open counts, the same total after a reopen', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  const limits = { maxFileBytes: 4000, maxVaultBytes: 10_000 };
  const files = ['/memories/big1.md', '/memories/big2.md', '/memories/big3.md', '/memories/d/big4.md'];
  let refused = 0;
  let admitted = 0;
  for (let k = 0; k < 80; k++) {
    const c = k % 5 === 4 ? b : a;
    const p = files[k % files.length]!;
    const size = 2400 + ((k * 131) % 1600);
    const op = k % 7;
    try {
      if (op < 4) await c.v.memory.writeFile(p, 'x'.repeat(size), { mode: 'upsert', source: 'user', limits });
      else if (op === 4) await c.v.memory.remove(p, 'user');
      else if (op === 5) await c.v.memory.rename(p, files[(k + 1) % files.length]!, 'user');
      else if (c.v.trash().length) await c.v.restoreDeleted(c.v.trash()[0]!.path, undefined, limits);
      admitted++;
    } catch (e) {
      if (!(e instanceof VaultError)) throw e;
      if (e.code === 'LIMIT') refused++;
    }
    same(c);
    const sum = c.v.memory
      .list('/memories', 10)
      .filter((e) => e.kind === 'file')
      .reduce((n, e) => n + (e as { size: number }).size, 0);
    expect(c.v.memory.totalSize()).toBe(sum);
    expect(sum).toBeLessThanOrEqual(limits.maxVaultBytes + 4000);
    if (k % 10 === 9) await syncAll([a, b]);
  }
  expect(refused).toBeGreaterThan(0);
  expect(admitted).toBeGreaterThan(20);
  await syncAll([a, b]);
  const total = a.v.memory.totalSize();
  const again = await reopen(a, 0);
  expect(again.v.memory.totalSize()).toBe(total);
  expect(b.v.memory.totalSize()).toBe(total);
}, 120_000);

it('a key rotation and a passphrase change between writes: the writes after them patch, as from scratch, on both computers', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  const w = (c: Computer, p: string, t: string) => c.v.memory.writeFile(p, t, { mode: 'upsert', ...user });
  await w(a, '/memories/r/one.md', 'one');
  await w(b, '/memories/r/two.md', 'two');
  await syncAll([a, b]);
  await w(b, '/memories/r/two.md', 'two, offline under the old keys');
  await a.v.rotateKeys(PASS);
  await w(a, '/memories/r/one.md', 'one after the rotation');
  expect(same(a)).toBe(true);
  await a.v.memory.rename('/memories/r/one.md', '/memories/r/uno.md', 'user');
  same(a);
  await syncAll([a, b]).catch(() => undefined);
  await carryHeader(a.dir, b.dir);
  await b.v.ingest().catch(() => undefined);
  if (!b.v.isUnlocked()) await b.v.unlock(PASS);
  same(b);
  await w(b, '/memories/r/two.md', 'two under the new keys');
  same(b);
  await b.v.changePassphrase(PASS, 'another passphrase');
  await b.v.memory.remove('/memories/r/two.md', 'user');
  expect(same(b)).toBe(true);
  await syncAll([b, a]);
  same(a);
  expect(a.v.memory.list('/memories/r', 1).map((e) => e.path)).toEqual(['/memories/r/uno.md']);
  expect(a.v.memory.totalSize()).toBe(b.v.memory.totalSize());
});

it('a folder only a file kept alive (its folder deleted on B while A wrote the file): moves within, out of, and a delete', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.memory.writeFile('/memories/k/x.md', 'x', { mode: 'create', ...user });
  await a.v.memory.writeFile('/memories/k/z.md', 'z', { mode: 'create', ...user });
  await syncAll([a, b]);
  await b.v.memory.remove('/memories/k', 'user');
  await a.v.memory.writeFile('/memories/k/x.md', 'x, edited meanwhile', { mode: 'update', ...user });
  await syncAll([a, b]);
  // The folder has no tag left; only x.md (a delete that met an edit) holds it up.
  expect(session(a.v).view.dirTags('/memories/k')).toEqual([]);
  expect(a.v.memory.list('/memories/k', 1).map((e) => e.path)).toEqual(['/memories/k/x.md']);
  same(a);
  await a.v.memory.rename('/memories/k/x.md', '/memories/k/y.md', 'user');
  same(a);
  await b.v.memory.rename('/memories/k/x.md', '/memories/k2/x.md', 'user');
  same(b);
  await syncAll([a, b]);
  same(a);
  same(b);
  for (const c of [a, b]) for (const f of c.v.memory.list('/memories', 5).filter((e) => e.kind === 'file')) await c.v.memory.remove(f.path, 'user');
  same(a);
  same(b);
  await syncAll([a, b]);
  expect(a.v.memory.list('/memories', 5)).toEqual(b.v.memory.list('/memories', 5));
  expect(a.v.memory.totalSize()).toBe(0);
  same(a);
});
