/**
 * Seen with real Syncthing (test/sync-e2e/syncthing.test.ts with MNEMO_SYNCTHING_CHURN=3): computer B compacted,
 * moving the bytes of a value A already showed from a journal segment into a pack, then removed the segment and its
 * older checkpoints. Syncthing delivered on A the pack and the removals, but not yet B's new checkpoint (the only file
 * saying which pack holds what): B had written and removed files faster than A could pull them. A then could not read
 * the value ("has not arrived yet") although its bytes were on A's disk, and a save that read it was refused. Here that
 * moment is made by hand.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { syncAll, vaultRoom, type Computer } from './carry-vaults';

const { computers } = vaultRoom('packs-arriving');

/** B's files as `c` has them, relative to its device folder. */
async function filesOf(c: Computer, dev: string): Promise<string[]> {
  const dir = path.join(c.dir, 'devices', dev);
  const out: string[] = [];
  for (const rel of (await fs.readdir(dir, { recursive: true })) as string[]) if ((await fs.stat(path.join(dir, rel))).isFile()) out.push(rel);
  return out.sort();
}

it('a value whose writer moved its bytes into a pack is read from that pack before the checkpoint naming it arrives', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await b.v.internal.putJSON('settings', { theme: 'dark' });
  await syncAll([a, b]);
  expect(await a.v.internal.getJSON('settings')).toEqual({ theme: 'dark' });
  const devB = (await b.v.internal.device!(false))!;
  const before = await filesOf(a, devB);

  // B writes on (checkpointing every 4 records) until the segment that held the value is gone from its folder.
  for (let i = 0; i < 40 && (await filesOf(b, devB)).some((f) => before.includes(f) && path.basename(f).startsWith('j-')); i++) await b.v.internal.putJSON(`other/${i}`, { i });
  const now = await filesOf(b, devB);
  expect(before.filter((f) => path.basename(f).startsWith('j-') && !now.includes(f))).not.toEqual([]);

  // On A: B's removals and B's new packs only; none of B's new checkpoints or segments.
  const folderA = path.join(a.dir, 'devices', devB);
  for (const f of before) if (!now.includes(f)) await fs.rm(path.join(folderA, f));
  for (const f of now) {
    if (before.includes(f) || !path.basename(f).startsWith('p-')) continue;
    await fs.mkdir(path.dirname(path.join(folderA, f)), { recursive: true });
    await fs.copyFile(path.join(b.dir, 'devices', devB, f), path.join(folderA, f));
  }
  expect((await filesOf(a, devB)).filter((f) => /(^|\/)c-/.test(f) && !before.includes(f))).toEqual([]);

  await a.v.ingest();
  expect(await a.v.internal.getJSON('settings')).toEqual({ theme: 'dark' });
  // Once the rest is here, nothing is wrong. (Until then `verify` takes B's files gone for a rollback of B: not changed here.)
  await syncAll([a, b]);
  expect(await a.v.internal.getJSON('other/0')).toEqual({ i: 0 });
  expect(await a.v.verify()).toEqual({ ok: true, problems: [] });
}, 30_000);
