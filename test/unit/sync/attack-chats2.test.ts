/**
 * Attacks on the per-computer conversation logs of a format-2 vault
 * (chat/conversation-log2.ts, docs/sync-design.md §12.4): interleavings of
 * turns, edits, rewinds and deletes on two or three computers, the upgrade of
 * a single-writer log, garbled stored values and a crash between a record and
 * its head. After every sync, every computer must read the same conversation,
 * whole, and list it with its transcript's length.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import type { StoredConversation } from '../../../electron/core/chat/conversation-values';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';
import { carry, FLOOR, PASS } from './two-computers';
import { said } from './turns';

let root: string;
const open: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-chats2-'));
});
afterEach(async () => {
  for (const v of open.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const ID = '00000000000000c1';
/** Seeds of the random runs: a sample under `npm test`, many under MNEMO_DEEP=1. */
const seeds = (sample: number[]) => (process.env.MNEMO_DEEP === '1' ? Array.from({ length: 24 }, (_, k) => k + 1) : sample);

const turn =
  (said: string) =>
  (c: StoredConversation): StoredConversation => ({
    ...c,
    updated: Date.now(),
    turnStarts: [...(c.turnStarts ?? []), c.messages.length],
    messages: [...c.messages, { role: 'user', content: said }, { role: 'assistant', content: [{ type: 'text', text: `re: ${said}` }] }],
    transcript: [...c.transcript, { role: 'user', text: said, at: 1 }, { role: 'assistant', text: `re: ${said}`, at: 2, tools: [] }],
  });

/** A Continue (turn-save.ts): the last reply's message rewritten, a transcript entry added, no new turn start. */
const carryOn =
  (more: string) =>
  (c: StoredConversation): StoredConversation => {
    const last = c.messages.at(-1)!;
    const text = (last.content as { text: string }[])[0]!.text;
    return { ...c, updated: Date.now(), messages: [...c.messages.slice(0, -1), { role: 'assistant', content: [{ type: 'text', text: `${text} ${more}` }] }], transcript: [...c.transcript, { role: 'assistant', text: more, at: 3, tools: [] }] };
  };

/** N computers on copies of one vault folder (as two-computers.ts, for any number). */
async function computers(n: number, v1 = false, before?: (v: Vault) => Promise<void>): Promise<{ vs: Vault[]; sync: (...which: number[]) => Promise<void> }> {
  const dirs = Array.from({ length: n }, (_, i) => path.join(root, `v${i}`));
  const opts = (i: number, format2 = true) => ({ stateDir: path.join(root, `s${i}`), format2, ackDelayMs: 0 });
  const made = await Vault.create(dirs[0]!, PASS, { kdf: FLOOR, ...opts(0, !v1) });
  await before?.(made.vault);
  await made.vault.close();
  for (const d of dirs.slice(1)) await fs.cp(dirs[0]!, d, { recursive: true });
  const vs: Vault[] = [];
  for (const [i, d] of dirs.entries()) {
    const v = await Vault.open(d, opts(i));
    await v.unlockWithRecoveryKey(made.recoveryKey);
    vs.push(v);
    open.push(v);
  }
  /** Syncs the computers named (default: all) with each other, twice round so everything reaches everyone. */
  const sync = async (...which: number[]) => {
    const ws = which.length ? which : vs.map((_, i) => i);
    for (let round = 0; round < 2; round++) for (const a of ws) for (const b of ws) if (a !== b) await carry(dirs[a]!, dirs[b]!);
    for (const i of ws) await vs[i]!.ingest();
  };
  return { vs, sync };
}

async function start(n: number, v1: boolean, turns: number) {
  const now = Date.now();
  return computers(n, v1, async (v) => {
    const cs = new Conversations(v);
    await cs.save({ id: ID, title: 'Shared', created: now, updated: now, messages: [], transcript: [] });
    for (let i = 0; i < turns; i++) await cs.update(ID, turn(`before ${i}`));
  });
}

/** The conversation as `v` reads it, checked whole: turn starts at their user messages, roles alternating, listed with its length. */
async function read(v: Vault): Promise<StoredConversation | undefined> {
  const cs = new Conversations(v);
  const c = await cs.get(ID);
  const listed = (await cs.list()).filter((x) => x.id === ID);
  if (!c) {
    expect(listed).toEqual([]);
    return c;
  }
  expect(listed.map((x) => x.messageCount)).toEqual([c.transcript.length]);
  expect(listed[0]!.title).toBe(c.title);
  expect(c.turnStarts).toHaveLength(said(c).length);
  for (const [i, at] of (c.turnStarts ?? []).entries()) expect(c.messages[at]).toMatchObject({ role: 'user', content: said(c)[i] });
  for (let i = 1; i < c.messages.length; i++) expect(c.messages[i]!.role).not.toBe(c.messages[i - 1]!.role);
  if (c.messages.length) expect(c.messages[0]!.role).toBe('user');
  return c;
}

/** Every computer reads the same conversation (checked whole); returns it. */
async function agreed(vs: Vault[]): Promise<StoredConversation | undefined> {
  const first = await read(vs[0]!);
  for (const v of vs.slice(1)) expect(await read(v)).toEqual(first);
  return first;
}

const deviceOf = async (v: Vault) => (await v.internal.device!(false))!;

/**
 * The computers ordered by device id (made now if need be): concurrent exchanges with as many records read sort by
 * device, so a test that needs one computer's exchange to sort first picks it from here instead of by chance.
 */
async function byDevice(vs: Vault[]): Promise<Vault[]> {
  const ids = new Map<Vault, string>();
  for (const v of vs) ids.set(v, (await v.internal.device!(true))!);
  return [...vs].sort((a, b) => (ids.get(a)! < ids.get(b)! ? -1 : 1));
}

it('both computers take back the last exchange of a conversation stored before the upgrade: its other turns are not doubled', async () => {
  const { vs, sync } = await start(2, true, 5);
  for (const v of vs) expect(await new Conversations(v).rewindLast(ID)).toBe('before 4');
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['before 0', 'before 1', 'before 2', 'before 3']);
});

it('one computer takes back the last exchange of a conversation stored before the upgrade while the other adds a turn: the turn stays after the history it answered', async () => {
  const { vs, sync } = await start(2, true, 4);
  // The computer adding the turn is the one whose exchange sorts first (same records read, smaller device id).
  const [adder, rewinder] = await byDevice(vs);
  await new Conversations(rewinder!).rewindLast(ID);
  await new Conversations(adder!).update(ID, turn('added'));
  await sync();
  const c = await agreed(vs);
  // Was ['added', 'before 0', 'before 1', 'before 2']: the history re-added after the turn that had followed it.
  expect(said(c)).toEqual(['before 0', 'before 1', 'before 2', 'added']);
});

it('after showing an older version (its turns stored again as one exchange), both computers take back the last exchange: no turn is doubled', async () => {
  const { vs, sync } = await start(2, false, 4);
  const ca = new Conversations(vs[0]!);
  await ca.branch(ID, 1, 'edit');
  await ca.update(ID, turn('edited 1'));
  // Back to the first version: "before 1"–"before 3" come back as one exchange.
  await ca.showVersion(ID, 1, 0);
  await sync();
  expect(said(await agreed(vs))).toEqual(['before 0', 'before 1', 'before 2', 'before 3']);
  for (const v of vs) await new Conversations(v).rewindLast(ID);
  await sync();
  expect(said(await agreed(vs))).toEqual(['before 0', 'before 1', 'before 2']);
});

it('both computers edit the same early message (branch) of a conversation they both added to: no turn is doubled', async () => {
  const { vs, sync } = await start(2, false, 1);
  const [ca, cb] = vs.map((v) => new Conversations(v));
  await ca!.update(ID, turn('A1'));
  await sync();
  await cb!.update(ID, turn('B1'));
  await sync();
  // Each makes a new version of "A1" (exchange 1) and sends it.
  await ca!.branch(ID, 1, 'edit');
  await ca!.update(ID, turn('A1 edited on A'));
  await cb!.branch(ID, 1, 'edit');
  await cb!.update(ID, turn('A1 edited on B'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)[0]).toBe('before 0');
  expect(said(c).filter((s) => s === 'before 0')).toHaveLength(1);
  expect(new Set(said(c).slice(1))).toEqual(new Set(['A1 edited on A', 'A1 edited on B']));
});

it.each([0, 1])('a Continue on one computer while the other adds a turn (the adder\'s id sorting %i): the continued reply stays with its exchange, the turn after it', async (adderAt) => {
  const { vs, sync } = await start(2, false, 2);
  const sorted = await byDevice(vs);
  await new Conversations(sorted[1 - adderAt]!).update(ID, carryOn('more'));
  await new Conversations(sorted[adderAt]!).update(ID, turn('B1'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['before 0', 'before 1', 'B1']);
  expect(c!.transcript.map((e) => e.text)).toEqual(['before 0', 're: before 0', 'before 1', 're: before 1', 'more', 'B1', 're: B1']);
  expect(c!.messages.at(-3)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 're: before 1 more' }] });
});

it('both computers take back the same exchange, then each adds a turn', async () => {
  const { vs, sync } = await start(2, false, 3);
  for (const v of vs) await new Conversations(v).rewindLast(ID);
  await new Conversations(vs[0]!).update(ID, turn('A'));
  await new Conversations(vs[1]!).update(ID, turn('B'));
  await sync();
  const c = await agreed(vs);
  expect(said(c).slice(0, 2)).toEqual(['before 0', 'before 1']);
  expect(new Set(said(c).slice(2))).toEqual(new Set(['A', 'B']));
});

it('renames and flags on both computers at once, with turns: every change survives', async () => {
  const { vs, sync } = await start(2, false, 1);
  const [ca, cb] = vs.map((v) => new Conversations(v));
  await ca!.rename(ID, 'Title A');
  await cb!.setFlags(ID, { pinned: true });
  await ca!.update(ID, turn('A1'));
  await cb!.setFlags(ID, { archived: true });
  await cb!.update(ID, turn('B1'));
  await sync();
  const c = await agreed(vs);
  expect(c!.title).toBe('Title A');
  expect((await ca!.list())[0]).toMatchObject({ pinned: true, archived: true, title: 'Title A' });
  expect(new Set(said(c))).toEqual(new Set(['before 0', 'A1', 'B1']));
});

it('three computers: turns, a rewind and a rename, synced in pairs at odd moments, end the same everywhere with every acknowledged turn', async () => {
  const { vs, sync } = await start(3, false, 1);
  const cs = vs.map((v) => new Conversations(v));
  const kept = new Set(['before 0']);
  for (let r = 0; r < 6; r++) {
    for (const [i, c] of cs.entries()) {
      await c.update(ID, turn(`${i}.${r}`));
      kept.add(`${i}.${r}`);
    }
    if (r === 2) {
      // Computer 1 takes back its last turn (the last exchange it reads may be another's).
      const text = await cs[1]!.rewindLast(ID);
      kept.delete(text);
    }
    if (r === 3) await cs[2]!.rename(ID, 'Three');
    await sync(r % 3, (r + 1) % 3);
  }
  await sync();
  const c = await agreed(vs);
  expect(new Set(said(c))).toEqual(kept);
  expect(c!.title).toBe('Three');
});

it('a delete on both computers at once is a delete on both; their bytes are gone', async () => {
  const { vs, sync } = await start(2, false, 3);
  for (const v of vs) await new Conversations(v).delete(ID);
  await sync();
  expect(await agreed(vs)).toBeUndefined();
  for (const v of vs) expect(v.internal.keys(`conversation-log/${ID}/`)).toEqual([]);
});

it('delete, revive by a raced turn, delete again with a third computer adding a turn it had not seen: the last turn comes back alone', async () => {
  const { vs, sync } = await start(3, false, 2);
  const cs = vs.map((v) => new Conversations(v));
  await cs[0]!.delete(ID);
  await cs[1]!.update(ID, turn('B1'));
  await sync(0, 1);
  expect(said(await read(vs[0]!))).toEqual(['B1']);
  await cs[0]!.delete(ID);
  // Computer 2 has seen none of it.
  await cs[2]!.update(ID, turn('C1'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['C1']);
});

it('a delete on one computer while the other is more than 32 records ahead: the revived conversation reads', async () => {
  const { vs, sync } = await start(2, false, 0);
  const [ca, cb] = vs.map((v) => new Conversations(v));
  for (let i = 0; i < 3; i++) await cb!.update(ID, turn(`B${i}`));
  await sync();
  // B goes on 40 turns (its group 0 filled, slots 0–10 reused) while A, having seen 3, deletes.
  for (let i = 3; i < 43; i++) await cb!.update(ID, turn(`B${i}`));
  await ca!.delete(ID);
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(Array.from({ length: 40 }, (_, i) => `B${i + 3}`));
  // And both go on past the next group.
  for (let i = 43; i < 70; i++) await cb!.update(ID, turn(`B${i}`));
  await ca!.update(ID, turn('A after'));
  await sync();
  const d = await agreed(vs);
  expect(said(d)).toHaveLength(68);
});

// Was: a rewind writes a record (a cut, nothing added), and the head merge revived a delete whenever a live head
// counted a record the delete had not seen: the user's delete on A came back on both as an empty conversation.
it('a delete raced by the other computer\'s rewind does not bring back an empty conversation', async () => {
  const { vs, sync } = await start(2, false, 3);
  await new Conversations(vs[0]!).delete(ID);
  await new Conversations(vs[1]!).rewindLast(ID);
  await sync();
  // The user deleted it on A; B only took back a message: nothing new to keep.
  expect(await agreed(vs)).toBeUndefined();
});

it('a delete raced by the other computer\'s rewind and new turn (edit last message, sent again) brings back only that turn', async () => {
  const { vs, sync } = await start(2, false, 3);
  await new Conversations(vs[0]!).delete(ID);
  const cb = new Conversations(vs[1]!);
  await cb.rewindLast(ID);
  await cb.update(ID, turn('sent again'));
  await sync();
  expect(said(await agreed(vs))).toEqual(['sent again']);
});

it('upgrade: a 40-turn single-writer conversation edited inside its legacy part on one computer while the other adds turns and rewinds', async () => {
  const { vs, sync } = await start(2, true, 40);
  // B, adding turns, is the computer whose exchanges sort first among those with as many records read.
  const [cb, ca] = (await byDevice(vs)).map((v) => new Conversations(v));
  await ca!.branch(ID, 20, 'edit');
  await ca!.update(ID, turn('A edit of 20'));
  for (let i = 0; i < 3; i++) await cb!.update(ID, turn(`B${i}`));
  await cb!.rewindLast(ID);
  await sync();
  const c = await agreed(vs);
  expect(said(c).slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `before ${i}`));
  expect(said(c).filter((s) => s === 'before 0')).toHaveLength(1);
  expect(said(c)).toContain('A edit of 20');
  expect(said(c)).toContain('B0');
  expect(said(c)).toContain('B1');
  expect(said(c)).not.toContain('B2');
});

it('a computer that crashes between its record and its head: its next save and the other computer stay whole', async () => {
  const { vs, sync } = await start(2, false, 30);
  const [va, vb] = vs as [Vault, Vault];
  const ca = new Conversations(va);
  await ca.update(ID, turn('A0'));
  // Record 31 (it fills group 0) is written, then the head fails once.
  const put = va.internal.putJSON;
  let armed = true;
  (va.internal as { putJSON: typeof put }).putJSON = async (key, value) => {
    if (armed && key === `conversations/${ID}`) {
      armed = false;
      throw new Error('power cut');
    }
    return put.call(va.internal, key, value);
  };
  await expect(ca.update(ID, turn('lost'))).rejects.toThrow('power cut');
  await sync();
  expect(said(await agreed(vs))).not.toContain('lost');
  await ca.update(ID, turn('A1'));
  await new Conversations(vb).update(ID, turn('B1'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).not.toContain('lost');
  expect(said(c)).toEqual(expect.arrayContaining(['A0', 'A1', 'B1']));
  expect(said(c)).toHaveLength(33);
});

it.each([
  ['a record whose lists are not lists', { c: {}, m: 5, t: null, s: 'x' }],
  ['a record without counts', { m: [], t: [], s: [] }],
  ['a record that is a number', 7],
  ['a record whose cut is a string', { c: {}, cut: 'L', m: [], t: [], s: [] }],
])('a garbled record (%s, another computer\'s buggy build) reads as DAMAGED, not a TypeError', async (_name, garbled) => {
  const { vs } = await start(2, false, 1);
  const [va] = vs as [Vault];
  const dev = await deviceOf(va);
  await va.internal.putJSON(`conversation-log/${ID}/${dev}/0`, garbled);
  const err = await new Conversations(va).get(ID).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(VaultError);
  expect((err as VaultError).code).toBe('DAMAGED');
});

it.each([
  ['counts that are not numbers', { logs: { x: 'many' } }],
  ['a floor that is not counts', { floor: 3 }],
  ['a deleted mark without seen', { deleted: { at: 1 } }],
])('a garbled head (%s) reads as a VaultError or a conversation, never a TypeError', async (_name, change) => {
  const { vs, sync } = await start(2, false, 1);
  const [va, vb] = vs as [Vault, Vault];
  await new Conversations(vb).update(ID, turn('B1'));
  const head = (await va.internal.getJSON<Record<string, unknown>>(`conversations/${ID}`))!;
  await va.internal.putJSON(`conversations/${ID}`, { ...head, ...change });
  await sync();
  for (const v of vs) {
    const got = await new Conversations(v).get(ID).catch((e: unknown) => e);
    if (got instanceof Error) expect(got).toBeInstanceOf(VaultError);
    const listed = await new Conversations(v).list().catch((e: unknown) => e);
    if (listed instanceof Error) expect(listed).toBeInstanceOf(VaultError);
  }
});

it('a garbled record of another computer in a conversation whose heads merged does not take the whole list down', async () => {
  const { vs, sync } = await start(2, false, 1);
  const [va, vb] = vs as [Vault, Vault];
  const other = '00000000000000c2';
  const now = Date.now();
  await new Conversations(va).save({ id: other, title: 'Other', created: now, updated: now, messages: [], transcript: [] });
  await sync();
  // B's buggy build stores a record of a wrong shape while A adds a turn: the merged head has no `entries`.
  await new Conversations(vb).update(ID, turn('B1'));
  const dev = await deviceOf(vb);
  await vb.internal.putJSON(`conversation-log/${ID}/${dev}/0`, { c: {}, m: 'garbled' });
  await new Conversations(va).update(ID, turn('A1'));
  await sync();
  for (const v of vs) {
    const cs = new Conversations(v);
    await expect(cs.get(ID)).rejects.toMatchObject({ code: 'DAMAGED' });
    // The other conversation still lists, and the damaged one too (so it can be opened to see why, or deleted).
    const listed = await cs.list();
    expect(listed.map((c) => c.id).sort()).toEqual([ID, other]);
    // And saving another conversation (which updates the index) still works.
    await cs.update(other, turn(`y on ${v === va ? 'A' : 'B'}`));
  }
});

// Was: in scheme 2 a delete leaves the head (marked deleted), so the sweep of orphaned logs (keys of ids with no head)
// never found what a crash after the mark left: the deleted conversation's records stayed in the vault for good.
it('a crash between the delete mark and the removal of the log: the deleted conversation\'s bytes still go (next delete or unlock)', async () => {
  const { vs, sync } = await start(2, false, 3);
  const [va, vb] = vs as [Vault, Vault];
  const other = '00000000000000c2';
  const now = Date.now();
  const ca = new Conversations(va);
  await new Conversations(vb).update(ID, turn('B1'));
  await new Conversations(vb).update(ID, turn('B2'));
  await sync();
  await ca.save({ id: other, title: 'Other', created: now, updated: now, messages: [], transcript: [] });
  await ca.update(other, turn('x'));
  const del = va.internal.delete;
  let armed = true;
  (va.internal as { delete: typeof del }).delete = async (key) => {
    if (armed && key.startsWith(`conversation-log/${ID}/`)) {
      armed = false;
      throw new Error('power cut');
    }
    return del.call(va.internal, key);
  };
  await expect(ca.delete(ID)).rejects.toThrow('power cut');
  expect(await ca.get(ID)).toBeUndefined();
  // Another delete sweeps what a cut-short one left, as in a single-writer vault: the other computer's records too.
  await ca.delete(other);
  expect(va.internal.keys(`conversation-log/${ID}/`)).toEqual([]);
  // A turn the other computer added without having seen the delete still brings it back.
  await new Conversations(vb).update(ID, turn('B late'));
  await sync();
  await new Conversations(va).list();
  await sync();
  expect(said(await agreed(vs))).toEqual(['B late']);
});

it.each(seeds([1, 3]))('three computers, random turns, rewinds, edits, Continues and renames with syncs at random (seed %i): all read one whole conversation, no turn doubled, none lost that no one took back', async (seed) => {
  let x = seed * 2654435761;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
  const { vs, sync } = await start(3, seed % 2 === 0, 2);
  const cs = vs.map((v) => new Conversations(v));
  const added = new Set(['before 0', 'before 1']);
  const takenBack = new Set<string>();
  const continued = new Set<string>();
  for (let step = 0; step < 40; step++) {
    const i = rand(3);
    const c = cs[i]!;
    const op = rand(10);
    const view = said(await c.get(ID));
    if (op < 5 || view.length < 2) {
      const text = `${i}.${step}`;
      await c.update(ID, turn(text));
      added.add(text);
    } else if (op === 5) {
      // Refused (INVALID) when the last message has versions: the window offers Edit instead.
      const text = await c.rewindLast(ID).catch((e: unknown) => (e instanceof VaultError && e.code === 'INVALID' ? undefined : Promise.reject(e)));
      if (text !== undefined) takenBack.add(text);
    } else if (op === 6) {
      const at = 1 + rand(view.length - 1);
      for (const s of view.slice(at)) takenBack.add(s);
      await c.branch(ID, at, 'edit');
      const text = `${i}.${step} edit`;
      await c.update(ID, turn(text));
      added.add(text);
    } else if (op === 7) {
      // A Continue of the last reply (its exchange may then be doubled by a concurrent change of it: a known limit).
      continued.add(view.at(-1)!);
      await c.update(ID, carryOn(`more ${step}`));
    } else if (op === 8) await c.rename(ID, `title ${step}`);
    else await sync(rand(3), rand(3));
    if (rand(4) === 0) await sync();
  }
  await sync();
  const end = await agreed(vs);
  const texts = said(end);
  for (const s of added) if (!takenBack.has(s)) expect(texts).toContain(s);
  const doubled = texts.filter((s, k) => texts.indexOf(s) !== k && !continued.has(s));
  expect(doubled).toEqual([]);
});

it('a rewind and a Continue of the same exchange on two computers while a third adds a turn: the continued reply stays before that turn', async () => {
  const { vs, sync } = await start(3, false, 2);
  await sync();
  // The third computer's exchange sorts first among those with as many records read.
  const [adder, rewinder, continuer] = await byDevice(vs);
  await new Conversations(rewinder!).rewindLast(ID);
  await new Conversations(continuer!).update(ID, carryOn('more'));
  await new Conversations(adder!).update(ID, turn('C1'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['before 0', 'before 1', 'C1']);
  expect(c!.transcript.map((e) => e.text)).toEqual(['before 0', 're: before 0', 'before 1', 're: before 1', 'more', 'C1', 're: C1']);
});

it('a delete on one computer while the other makes a new version of a message and sends it: the revived conversation reads, and its versions fail cleanly', async () => {
  const { vs, sync } = await start(2, false, 3);
  await new Conversations(vs[0]!).delete(ID);
  const cb = new Conversations(vs[1]!);
  await cb.branch(ID, 1, 'edit');
  await cb.update(ID, turn('edited 1'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['edited 1']);
  for (const v of vs) {
    const cs = new Conversations(v);
    const conv = (await cs.get(ID))!;
    for (const f of conv.forks ?? []) {
      for (let k = 0; k < f.versions.length; k++) {
        const r = await cs.showVersion(ID, f.at, k).catch((e: unknown) => e);
        if (r instanceof Error) expect(r).toBeInstanceOf(VaultError);
        else await read(v);
      }
    }
  }
});

it.each(seeds([3]))('three computers with deletes among random turns, rewinds and Continues (seed %i): all read the same, whole, listed alike, no turn doubled', async (seed) => {
  let x = seed * 40503 + 7;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
  const { vs, sync } = await start(3, false, 2);
  const cs = vs.map((v) => new Conversations(v));
  const continued = new Set<string>();
  const gone = (e: unknown) => (e instanceof VaultError && (e.code === 'NOT_FOUND' || e.code === 'INVALID') ? undefined : Promise.reject(e));
  for (let step = 0; step < 60; step++) {
    const i = rand(3);
    const c = cs[i]!;
    const op = rand(12);
    const view = await c.get(ID);
    if (op < 6) await c.update(ID, turn(`${i}.${step}`));
    else if (op === 6) await c.rewindLast(ID).catch(gone);
    else if (op === 7 && view?.messages.length) {
      continued.add(said(view).at(-1)!);
      await c.update(ID, carryOn(`more ${step}`));
    } else if (op === 8) await c.delete(ID);
    else if (op === 9) await c.rename(ID, `title ${step}`).catch(gone);
    else await sync(rand(3), rand(3));
    if (rand(3) === 0) await sync();
  }
  await sync();
  const end = await agreed(vs);
  const texts = said(end);
  expect(texts.filter((s, k) => texts.indexOf(s) !== k && !continued.has(s))).toEqual([]);
  for (const v of vs) if (!end) expect(v.internal.keys(`conversation-log/${ID}/`)).toEqual([]);
});

it('an edit of an earlier reply (its exchange and the last stored again) and a Continue of the last on two computers while a third adds a turn: the continued exchange stays before that turn', async () => {
  const { vs, sync } = await start(3, false, 2);
  await sync();
  const [editor, adder, continuer] = await byDevice(vs);
  await new Conversations(editor!).update(ID, (c) => ({ ...c, messages: c.messages.map((m, i) => (i === 1 ? { role: 'assistant', content: [{ type: 'text', text: 're: before 0 (fixed)' }] } : m)) }));
  await new Conversations(continuer!).update(ID, carryOn('more'));
  await new Conversations(adder!).update(ID, turn('C1'));
  await sync();
  const c = await agreed(vs);
  // "before 1" twice (two computers changed it at once: kept both, a known limit), and C1 after both.
  expect(said(c)).toEqual(['before 0', 'before 1', 'before 1', 'C1']);
});

it('a delete raced by the other computer taking back the last turn of a conversation stored before the upgrade: the deleted turns do not come back', async () => {
  const { vs, sync } = await start(2, true, 5);
  await new Conversations(vs[0]!).delete(ID);
  // The rewind stores "before 0"–"before 3" again (its exchange is the whole single-writer log): nothing new.
  await new Conversations(vs[1]!).rewindLast(ID);
  await sync();
  expect(await agreed(vs)).toBeUndefined();
  // And the rewinding computer's leftover record goes with its next sweep.
  await new Conversations(vs[1]!).delete('00000000000000c9').catch(() => undefined);
  expect(vs[1]!.internal.keys(`conversation-log/${ID}/`)).toEqual([]);
});

it('a delete raced by a rewind of a conversation stored before the upgrade on one computer and a turn on a third: only that turn comes back', async () => {
  const { vs, sync } = await start(3, true, 5);
  await new Conversations(vs[0]!).delete(ID);
  await new Conversations(vs[1]!).rewindLast(ID);
  await new Conversations(vs[2]!).update(ID, turn('C1'));
  await sync();
  expect(said(await agreed(vs))).toEqual(['C1']);
});

it.each([
  ['counts that are null', { logs: null }],
  ['a newer head version', { v: 3 }],
  ['meta that is a string', { meta: 'x' }],
])('a head of no known shape (%s) reads and lists as DAMAGED (or not at all), never a TypeError', async (_name, change) => {
  const { vs, sync } = await start(2, false, 1);
  const [va] = vs as [Vault];
  const head = (await va.internal.getJSON<Record<string, unknown>>(`conversations/${ID}`))!;
  await va.internal.putJSON(`conversations/${ID}`, { ...head, ...change });
  await sync();
  for (const v of vs) {
    const cs = new Conversations(v);
    const got = await cs.get(ID).catch((e: unknown) => e);
    expect(got).toBeInstanceOf(VaultError);
    const listed = await cs.list().catch((e: unknown) => e);
    if (listed instanceof Error) expect(listed).toBeInstanceOf(VaultError);
  }
});

it.each(seeds([3, 11]))('two computers on a vault stored single-writer, with versions, deletes and Continues at random (seed %i): all read the same, whole', async (seed) => {
  let x = seed * 69069 + 1;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
  const { vs, sync } = await start(2, true, 6);
  const cs = vs.map((v) => new Conversations(v));
  const tolerated = (e: unknown) => (e instanceof VaultError && (e.code === 'NOT_FOUND' || e.code === 'INVALID') ? undefined : Promise.reject(e));
  for (let step = 0; step < 50; step++) {
    const i = rand(2);
    const c = cs[i]!;
    const view = await c.get(ID);
    const n = said(view).length;
    const op = rand(14);
    if (op < 5) await c.update(ID, turn(`${i}.${step}`));
    else if (op === 5) await c.rewindLast(ID).catch(tolerated);
    else if (op === 6 && n > 1) {
      await c.branch(ID, rand(n), 'edit').catch(tolerated);
      await c.update(ID, turn(`${i}.${step} edit`));
    } else if (op === 7 && view?.forks?.length) {
      const f = view.forks[rand(view.forks.length)]!;
      await c.showVersion(ID, f.at, rand(f.versions.length)).catch(tolerated);
    } else if (op === 8 && view?.messages.length) await c.update(ID, carryOn(`more ${step}`));
    else if (op === 9 && rand(3) === 0) await c.delete(ID);
    else await sync();
  }
  await sync();
  await agreed(vs);
});

it('a conversation with versions deleted on one computer while the other adds a turn: the revived conversation names no version the delete removed', async () => {
  const { vs, sync } = await start(2, false, 3);
  const cb = new Conversations(vs[1]!);
  await cb.branch(ID, 1, 'edit');
  await cb.update(ID, turn('edited 1'));
  await sync();
  await new Conversations(vs[0]!).delete(ID);
  await cb.update(ID, turn('B late'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['B late']);
  // Every version it names can be shown (was: DAMAGED, "a version of this conversation is missing").
  for (const v of vs) {
    const cs = new Conversations(v);
    for (const f of (await cs.get(ID))!.forks ?? []) for (let k = 0; k < f.versions.length; k++) await cs.showVersion(ID, f.at, k);
  }
});

// Not fixed: a delete removes the conversation's attachments at once (every key under attachments/<id>/ it knows).
// A Continue on the other computer raced with it stores its exchange again, with the user's message and the reference
// to its attachment, and revives the conversation with it: the message comes back, its bytes do not (the window and
// the next request then say "an attachment that was here is missing"). Keeping them needs the delete to spare bytes a
// revival may name, which it cannot know; left for the author (it is the same trade-off as §12.4's "the bytes go at once").
it.fails('a delete raced by a Continue of an exchange with an attachment: the revived message keeps its attachment', async () => {
  const { vs, sync } = await start(2, false, 1);
  const cb = new Conversations(vs[1]!);
  const att = '00000000000000a1';
  await cb.putAttachment(ID, att, new Uint8Array([1, 2, 3]));
  await cb.update(ID, (c) => {
    const t = turn('with a file')(c);
    t.transcript[t.transcript.length - 2] = { role: 'user', text: 'with a file', at: 1, attachments: [{ id: att, name: 'a.txt', mediaType: 'text/plain', bytes: 3 }] };
    return t;
  });
  await sync();
  await new Conversations(vs[0]!).delete(ID);
  await cb.update(ID, carryOn('more'));
  await sync();
  const c = await agreed(vs);
  expect(said(c)).toEqual(['with a file']);
  for (const v of vs) expect(await new Conversations(v).getAttachment(ID, att)).toEqual(new Uint8Array([1, 2, 3]));
});
