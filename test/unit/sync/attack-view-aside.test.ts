/**
 * Attacks the layout both the full build and the patched view of format 2 share (sync/tree.ts): a live file whose path
 * became a folder's (two computers at once) is shown aside as `<path>.conflict-<dev8>-<seq>`. A memory already at that
 * name (any user or agent may pick one) was overwritten by the aside one in the layout: hidden from list and stat,
 * left out of the total the size limit counts, and a write to that path went to the other file. Fixed in tree.ts
 * `buildTree`: the file stepping aside takes the next free name (`-2`, `-3`…, in path order); a move of the memory
 * holding the name is not patched (the aside file takes the name back: tree `displaced`).
 */
import { expect, it } from 'vitest';
import { asideName } from '../../../electron/core/vault/sync/tree';
import { SyncView } from '../../../electron/core/vault/sync/view';
import { session, syncAll, vaultRoom, type Computer } from './carry-vaults';

const { computers } = vaultRoom('attack-view-aside');
const user = { source: 'user' } as const;
type Reader = ConstructorParameters<typeof SyncView>[1];

it('a memory at the very name a file steps aside to stays shown and counted', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.memory.writeFile('/memories/seed.md', 'seed', { mode: 'create', ...user });
  await syncAll([a, b]);
  // A makes file X at /memories/a, then a memory N at the name X would step aside to; B, meanwhile, a file under /memories/a.
  await a.v.memory.writeFile('/memories/a', 'X, the file', { mode: 'create', ...user });
  const name = asideName('/memories/a', session(a.v).view.fidAt('/memories/a')!);
  await a.v.memory.writeFile(name, 'N, a memory of its own', { mode: 'create', ...user });
  await b.v.memory.writeFile('/memories/a/b.md', 'under a', { mode: 'create', ...user });
  await syncAll([a, b]);
  for (const c of [a, b]) {
    const files = c.v.memory.list('/memories', 5).filter((e) => e.kind === 'file');
    // Four memories, each shown somewhere, each counted once.
    expect(files.length).toBe(4);
    const texts = await Promise.all(files.map((e) => c.v.memory.readFile(e.path)));
    expect(texts.sort()).toEqual(['N, a memory of its own', 'X, the file', 'seed', 'under a']);
    expect(c.v.memory.totalSize()).toBe(texts.reduce((n, t) => n + Buffer.byteLength(t), 0));
    const s = session(c.v);
    expect(JSON.stringify(new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader).list('/memories', 5))).toBe(JSON.stringify(s.view.list('/memories', 5)));
  }
  // A write to N's name goes to N.
  await a.v.memory.writeFile(name, 'N, written again', { mode: 'update', ...user });
  expect(await a.v.memory.readFile(name)).toBe('N, written again');
  expect(await a.v.memory.readFile(`${name}-2`)).toBe('X, the file');
  same(a);
  // N deleted: its trash entry keeps the name; N moved away (patched, the name would stay taken): X takes it.
  await a.v.memory.remove(name, 'user');
  same(a);
  await a.v.restoreDeleted(name);
  same(a);
  await a.v.memory.rename(name, '/memories/n.md', 'user');
  expect(session(a.v).view.patched).toBe(false);
  same(a);
  expect(await a.v.memory.readFile(name)).toBe('X, the file');
  expect(a.v.memory.stat(`${name}-2`)).toBeUndefined();
  await syncAll([a, b]);
  for (const c of [a, b]) same(c);
  expect(JSON.stringify(b.v.memory.list('/memories', 5))).toBe(JSON.stringify(a.v.memory.list('/memories', 5)));
});

/** `c`'s view equals one built from scratch, and its total the sum of what it lists. */
function same(c: Computer): void {
  const s = session(c.v);
  const fresh = new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader);
  const of = (v: SyncView) => JSON.stringify({ list: v.list('/memories', 5), trash: v.trashed(), total: v.totalSize() });
  expect(of(s.view)).toBe(of(fresh));
  const sum = s.view.list('/memories', 5).reduce((n, e) => n + (e.kind === 'file' ? e.size : 0), 0);
  expect(s.view.totalSize()).toBe(sum);
}
