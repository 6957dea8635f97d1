/**
 * Which copy of a computer gives way when two copies of it wrote at one seq (visible.ts `replacedAt`, give-way.ts;
 * docs/sync-design.md §12.9), and the sync engine's copies of segments the scanner reads (scan.ts `segmentCopy`).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { RecInfo } from '../../../electron/core/vault/sync/scan';
import { replacedAt } from '../../../electron/core/vault/sync/visible';
import { vaultRoom, type Computer } from './carry-vaults';
import { carry } from './two-computers';

const SEG = 'j-000000000003-407df491';
const rec = (file: string, tag: string, confirmed = true) => ({ file, tag, confirmed, seq: 3, count: 1 }) as unknown as RecInfo;

it('gives way when its record is gone, or beside another confirmed one; not beside a stale unconfirmed one', () => {
  expect(replacedAt([], 'mine')).toBe(false);
  expect(replacedAt([rec(SEG, 'mine')], 'mine')).toBe(false);
  expect(replacedAt([rec(SEG, 'theirs')], 'mine')).toBe(true);
  expect(replacedAt([rec(SEG, 'theirs', false)], 'mine')).toBe(true);
  expect(replacedAt([rec(SEG, 'mine'), rec('j-000000000003-db0de30f', 'theirs')], 'mine')).toBe(true);
  expect(replacedAt([rec(SEG, 'mine'), rec('j-000000000003-db0de30f', 'theirs', false)], 'mine')).toBe(false);
});

it("a sync engine's conflict copy decides: the copy whose record lies only in the engine's copy gives way, the other goes on", () => {
  const copy = `${SEG}.sync-conflict-20261127-120000-ABCDEFG`;
  expect(replacedAt([rec(SEG, 'theirs'), rec(copy, 'mine')], 'mine')).toBe(true);
  expect(replacedAt([rec(SEG, 'mine'), rec(copy, 'theirs')], 'mine')).toBe(false);
  expect(replacedAt([rec(`${SEG} (conflicted copy 2026-11-27)`, 'mine'), rec(SEG, 'theirs')], 'mine')).toBe(true);
});

const { computers } = vaultRoom('give-way');

it("a segment a sync engine renamed into a conflict copy is still read (its records, its blobs), and nothing else authenticates in it", async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.memory.writeFile('/memories/kept.md', 'kept in a copy', { mode: 'create', source: 'user' });
  // Confirmed, not compacted: the records and the text are in A's segments only.
  await a.v.ingest();
  const me = (await a.v.internal.device!(false))!;
  await carry(a.dir, b.dir);
  // On B, every segment of A's is only there as Syncthing's conflict copy; a stray file with a segment-like name too.
  const folder = path.join(b.dir, 'devices', me, (await fs.readdir(path.join(b.dir, 'devices', me)))[0]!);
  for (const name of await fs.readdir(folder)) {
    if (!name.startsWith('j-')) continue;
    await fs.rename(path.join(folder, name), path.join(folder, `${name}.sync-conflict-20261127-120000-ABCDEFG`));
    await fs.writeFile(path.join(folder, `${name} (conflicted copy)`), 'not a segment');
  }
  await b.v.ingest();
  expect(await b.v.memory.readFile('/memories/kept.md')).toBe('kept in a copy');
  expect(await b.v.verify()).toEqual({ ok: true, problems: [] });
}, 30_000);
