/**
 * Seen with real Syncthing (test/sync-e2e/syncthing.test.ts, checkpoints every 3 records): computer B compacted its
 * files (the segment holding its conversation's newest head went, the head's bytes moved into a pack), and Syncthing
 * delivered on A the removal of that segment and of B's older checkpoints before B's new checkpoint, the only file
 * saying which pack holds them. For a moment A could not read the head of B's conversation ("has not arrived yet").
 * A saving a turn in its *own* conversation then failed with that error, after its turn was already stored: the
 * save rebuilt the conversation list, which read B's head again. Here that moment is made by hand.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { carry, twoComputers } from './two-computers';
import { turn } from './turns';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-chats2-arriving-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

it('a save on one computer succeeds while the head of another computer conversation is still arriving, and the list keeps that conversation', async () => {
  const { va, vb, sync } = await twoComputers(root);
  const [ca, cb] = [new Conversations(va), new Conversations(vb)];
  const mine = (await ca.create()).id;
  const theirs = (await cb.create()).id;
  await cb.update(theirs, turn('B1'));
  await sync();
  // A saves a turn of its own: its stored list now has B's conversation too.
  await ca.update(mine, turn('A0'));
  expect((await ca.list()).map((c) => c.id).sort()).toEqual([mine, theirs].sort());

  // B adds a turn; A ingests it, then B's files holding the new head are gone from A's copy (moved by B's compaction,
  // the checkpoint naming their new place not here yet).
  await cb.update(theirs, turn('B2'));
  await vb.ingest();
  const a = path.join(root, 'va');
  await carry(path.join(root, 'vb'), a);
  await va.ingest();
  const devB = (await vb.internal.device!(false))!;
  const bFolder = path.join(a, 'devices', devB);
  for (const rel of (await fs.readdir(bFolder, { recursive: true })) as string[]) if (path.basename(rel).startsWith('j-')) await fs.rm(path.join(bFolder, rel));
  await expect(ca.get(theirs)).rejects.toMatchObject({ code: 'DAMAGED' });

  // A's own save is stored and says so; B's conversation stays listed as A last read it.
  await expect(ca.update(mine, turn('A1'))).resolves.toBeDefined();
  expect((await ca.get(mine))?.transcript.map((e) => e.text)).toEqual(['A0', 're: A0', 'A1', 're: A1']);
  const listed = await ca.list();
  expect(listed.map((c) => c.id).sort()).toEqual([mine, theirs].sort());
  expect(listed.find((c) => c.id === theirs)?.messageCount).toBe(2);

  // Once B's files are all here, the list has B's new turn.
  await sync();
  expect((await ca.list()).find((c) => c.id === theirs)?.messageCount).toBe(4);
  await va.close();
  await vb.close();
});
