/**
 * Format 2: a folder made by creating a file in it stays when its last file goes (deleted or moved out), as in format 1,
 * a file system and the memory tool's reference. Before, the folder was shown only while something lived under it: the
 * conformance run under format 2 found `view /memories/notes` answered "does not exist" where the reference lists it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { PASS, twoComputers } from './two-computers';

let root = '';
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-folders2-'));
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const dirs = (v: Vault) => v.memory.list('/memories', 3).filter((e) => e.kind === 'dir').map((e) => e.path).sort();

it('the folders of a deleted or moved-out last file stay, here and on the other computer, across a reopen', async () => {
  const { va, vb, sync } = await twoComputers(root);
  opened.push(va, vb);
  const user = { source: 'user' } as const;
  await va.memory.writeFile('/memories/work/deep/plan.md', 'plan', { mode: 'create', ...user });
  await va.memory.writeFile('/memories/notes/a.md', 'a', { mode: 'create', ...user });
  // The folder deleted with its file, then the file made again at the same path (its deleted versions kept in the
  // trash under that path, so the new text goes on the same file): the folder is back, and stays when the file goes.
  await va.memory.remove('/memories/work', 'user');
  expect(dirs(va)).toEqual(['/memories/notes']);
  await va.memory.writeFile('/memories/work/deep/plan.md', 'plan again', { mode: 'create', ...user });
  await va.memory.remove('/memories/work/deep/plan.md', 'user');
  await va.memory.rename('/memories/notes/a.md', '/memories/a.md', 'user');
  expect(dirs(va)).toEqual(['/memories/notes', '/memories/work', '/memories/work/deep']);
  await sync();
  expect(dirs(vb)).toEqual(['/memories/notes', '/memories/work', '/memories/work/deep']);
  // A folder deleted as such goes, with what it holds; its parent stays.
  await vb.memory.remove('/memories/work/deep', 'user');
  await sync();
  expect(dirs(va)).toEqual(['/memories/notes', '/memories/work']);
  await va.close();
  const again = await Vault.open(path.join(root, 'va'), { stateDir: path.join(root, 'a'), format2: true, ackDelayMs: 0 });
  opened.push(again);
  await again.unlock(PASS);
  expect(dirs(again)).toEqual(['/memories/notes', '/memories/work']);
});
