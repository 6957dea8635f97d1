/**
 * Stage 4 of docs/sync-design.md (§3, conversations): in a format-2 vault each
 * computer appends a conversation's turns to its own log
 * (`conversation-log/<id>/<device>/…`, one record per exchange), and the head
 * holds only the title, dates and how many records of each computer count. So
 * turns added to one conversation on two computers at once are all kept, in
 * the same order on both, and a rename on one and a turn on the other both
 * survive. Before, both computers wrote the same slots and the same head: one
 * side's turn was lost.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import type { StoredConversation } from '../../../electron/core/chat/conversation-values';
import type { Vault } from '../../../electron/core/vault/vault';
import { twoComputers } from './two-computers';
import { said, turn } from './turns';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-chats2-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const ID = '00000000000000c1';

/** The conversation as a computer reads it; checked to be whole: every turn start points at its user message. */
async function read(v: Vault): Promise<StoredConversation | undefined> {
  const c = await new Conversations(v).get(ID);
  if (c) {
    expect(c.turnStarts).toHaveLength(said(c).length);
    for (const [i, at] of (c.turnStarts ?? []).entries()) expect(c.messages[at]).toEqual({ role: 'user', content: said(c)[i] });
    expect(c.messages).toHaveLength(2 * said(c).length);
  }
  return c;
}

async function start(v1: boolean, turns: number) {
  const now = Date.now();
  return twoComputers(root, v1, async (v) => {
    const cs = new Conversations(v);
    await cs.save({ id: ID, title: 'Shared', created: now, updated: now, messages: [], transcript: [] });
    for (let i = 0; i < turns; i++) await cs.update(ID, turn(`before ${i}`));
  });
}

it('turns added to one conversation on two computers at once are all kept, in one order on both', async () => {
  const { va, vb, sync } = await start(false, 2);
  const [ca, cb] = [new Conversations(va), new Conversations(vb)];
  await ca.update(ID, turn('A1'));
  await cb.update(ID, turn('B1'));
  await ca.update(ID, turn('A2'));
  await sync();
  const a = await read(va);
  expect(new Set(said(a))).toEqual(new Set(['before 0', 'before 1', 'A1', 'A2', 'B1']));
  expect(said(a).slice(0, 2)).toEqual(['before 0', 'before 1']);
  // A's own turns keep their order.
  expect(said(a).indexOf('A1')).toBeLessThan(said(a).indexOf('A2'));
  expect(await read(vb)).toEqual(a);
  // Listed with the right count on both.
  for (const v of [va, vb]) expect((await new Conversations(v).list()).map((c) => c.messageCount)).toEqual([10]);
  // A turn after the sync goes after everything both had.
  await cb.update(ID, turn('B2'));
  await sync();
  expect(said(await read(va)).at(-1)).toBe('B2');
  expect(await read(va)).toEqual(await read(vb));
  await va.close();
  await vb.close();
});

it('a conversation stored by a single-writer vault keeps its turns and takes turns from both computers after the upgrade', async () => {
  // 40 turns: more than one merged group of the single-writer log.
  const { va, vb, sync } = await start(true, 40);
  const [ca, cb] = [new Conversations(va), new Conversations(vb)];
  for (let i = 0; i < 35; i++) await ca.update(ID, turn(`A${i}`));
  await cb.update(ID, turn('B0'));
  await sync();
  const a = await read(va);
  expect(said(a)).toHaveLength(76);
  expect(said(a).slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => `before ${i}`));
  expect(said(a).filter((s) => s.startsWith('A'))).toEqual(Array.from({ length: 35 }, (_, i) => `A${i}`));
  expect(said(a)).toContain('B0');
  expect(await read(vb)).toEqual(a);
  await va.close();
  await vb.close();
});

it.each([false, true])('a rename on one computer and a turn on the other both survive (stored by a single-writer vault: %s)', async (v1) => {
  const { va, vb, sync } = await start(v1, 1);
  await new Conversations(va).rename(ID, 'Renamed on A');
  await new Conversations(vb).update(ID, turn('B1'));
  await sync();
  for (const v of [va, vb]) {
    const c = await read(v);
    expect(c?.title).toBe('Renamed on A');
    expect(said(c)).toEqual(['before 0', 'B1']);
  }
  await va.close();
  await vb.close();
});

it('"edit last message" on one computer takes back its own exchange only, while the other adds a turn', async () => {
  const { va, vb, sync } = await start(false, 2);
  const text = await new Conversations(va).rewindLast(ID);
  expect(text).toBe('before 1');
  await new Conversations(vb).update(ID, turn('B1'));
  await sync();
  for (const v of [va, vb]) expect(said(await read(v))).toEqual(['before 0', 'B1']);
  // And the same once the exchange taken back was written on the other computer.
  await new Conversations(va).update(ID, turn('A1'));
  await sync();
  expect(await new Conversations(vb).rewindLast(ID)).toBe('A1');
  await sync();
  for (const v of [va, vb]) expect(said(await read(v))).toEqual(['before 0', 'B1']);
  await va.close();
  await vb.close();
});

it('a delete on one computer while the other adds a turn keeps that turn: the conversation comes back with what the delete had not seen', async () => {
  const { va, vb, sync } = await start(false, 2);
  await new Conversations(va).delete(ID);
  await new Conversations(vb).update(ID, turn('B1'));
  await sync();
  for (const v of [va, vb]) {
    expect(said(await read(v))).toEqual(['B1']);
    expect((await new Conversations(v).list()).map((c) => c.id)).toEqual([ID]);
  }
  // A takes it up again (so A's own list keeps it), then a delete nothing raced is a delete on both.
  await new Conversations(va).update(ID, turn('A1'));
  await sync();
  await new Conversations(vb).delete(ID);
  await sync();
  for (const v of [va, vb]) {
    expect(await read(v)).toBeUndefined();
    expect(await new Conversations(v).list()).toEqual([]);
  }
  // Its bytes are gone from both, not kept behind a mark.
  for (const v of [va, vb]) expect(v.internal.keys(`conversation-log/${ID}/`)).toEqual([]);
  await va.close();
  await vb.close();
});

it('after a delete raced by a turn, the computer that added it fills a merged group over the records the delete removed', async () => {
  const { va, vb, sync } = await start(false, 0);
  const cb = new Conversations(vb);
  for (let i = 0; i < 5; i++) await cb.update(ID, turn(`B${i}`));
  await sync();
  await new Conversations(va).delete(ID);
  await cb.update(ID, turn('B5'));
  await sync();
  // B's records 0–4 are gone with the delete; record 31 fills group 0, which must not need them.
  for (let i = 6; i < 40; i++) await cb.update(ID, turn(`B${i}`));
  await sync();
  const expected = Array.from({ length: 35 }, (_, i) => `B${i + 5}`);
  for (const v of [va, vb]) expect(said(await read(v))).toEqual(expected);
  await va.close();
  await vb.close();
});

it('versions of messages made on two computers at once are not swept as leftovers: each computer\'s stored versions stay', async () => {
  const { va, vb, sync } = await start(false, 3);
  const [ca, cb] = [new Conversations(va), new Conversations(vb)];
  // A makes a new version of the second message, B of the first, each sends it.
  await ca.branch(ID, 1, 'edit');
  await ca.update(ID, turn('A edit'));
  await cb.branch(ID, 0, 'edit');
  await cb.update(ID, turn('B edit'));
  // Versions only: a computer's own log folder (`…/<device>/`) starts with "b" too when its id does.
  const stored = (v: Vault) => v.internal.keys(`conversation-log/${ID}/b`).filter((k) => /\/b[0-9a-f]{16}$/.test(k));
  const written = [...stored(va), ...stored(vb)];
  expect(written).toHaveLength(2);
  await sync();
  // Listing sweeps leftovers of crashes; one computer's versions lost from the merged head are not leftovers.
  for (const v of [va, vb]) await new Conversations(v).list();
  await sync();
  for (const v of [va, vb]) expect(stored(v)).toEqual([...written].sort());
  await va.close();
  await vb.close();
});
