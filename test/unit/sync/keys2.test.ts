/**
 * Stage 4 of docs/sync-design.md (§3): the internal values two computers
 * would both rewrite are kept one key per id or per device in a format-2
 * vault, so changes made at once on two computers all survive the sync.
 * Two computers here are two state folders on copies of one vault folder,
 * their `devices/` folders copied across as a sync engine would.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { DraftKeeper } from '../../../electron/core/drafts';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
import { ReviewInbox, reviewVault } from '../../../electron/core/review/inbox';
import type { Vault } from '../../../electron/core/vault/vault';
import { twoComputers } from './two-computers';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-keys2-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));


const names = async (v: Vault) => (await new Projects(v).list()).map((p) => p.name);

it('projects made, renamed and deleted on two computers at once all survive: one value per project', async () => {
  const { va, vb, sync } = await twoComputers(root, false, async (v) => {
    await new Projects(v).create('Shared');
  });
  const [pa, pb] = [new Projects(va), new Projects(vb)];
  const shared = await pa.byName('Shared');
  await pa.create('Work');
  await pb.create('Home');
  await pa.rename(FIRST_PROJECT_ID, 'Main');
  await pb.create('Notes');
  await sync();
  expect(await names(va)).toEqual(await names(vb));
  expect(new Set(await names(va))).toEqual(new Set(['Main', 'Shared', 'Work', 'Home', 'Notes']));
  // Renamed on A while deleted on B: the live project wins, with A's name, on both.
  await pa.rename(shared.id, 'Shared 2');
  await pb.delete(shared.id);
  await sync();
  for (const v of [va, vb]) {
    expect((await new Projects(v).require(shared.id)).name).toBe('Shared 2');
    expect(await new Projects(v).listDeleted()).toEqual([]);
  }
  // The same name chosen on both at once: both kept, the later one shown with " (2)", the same on both.
  await pa.create('Ideas');
  await pb.create('ideas');
  await sync();
  const shown = await names(va);
  expect(shown).toEqual(await names(vb));
  expect(shown.filter((n) => /^ideas( \(2\))?$/i.test(n))).toHaveLength(2);
  // A delete alone goes through, and is listed on the other computer.
  const work = await pa.byName('Work');
  await pa.delete(work.id);
  await sync();
  for (const v of [va, vb]) expect((await new Projects(v).listDeleted()).map((p) => p.id)).toEqual([work.id]);
  for (const v of [va, vb]) expect(await v.verify()).toMatchObject({ ok: true });
  await va.close();
  await vb.close();
});

it('a project list stored by a single-writer vault reads as each project\'s first value, and a change of one keeps the others', async () => {
  let work = '';
  let old = '';
  const { va, vb, sync } = await twoComputers(root, true, async (v) => {
    const p = new Projects(v);
    work = (await p.create('Work')).id;
    old = (await p.create('Old')).id;
    await p.delete(old);
    expect(v.internal.keys('projects')).toEqual(['projects']);
  });
  expect(await names(va)).toEqual(['Default', 'Work']);
  expect((await new Projects(va).listDeleted()).map((p) => p.id)).toEqual([old]);
  await new Projects(va).rename(work, 'Job');
  await new Projects(vb).create('Home');
  await new Projects(vb).restore(old);
  await sync();
  for (const v of [va, vb]) {
    expect(new Set(await names(v))).toEqual(new Set(['Default', 'Job', 'Home', 'Old']));
    expect(await new Projects(v).listDeleted()).toEqual([]);
  }
  await va.close();
  await vb.close();
});

it('drafts kept at lock on two computers at once are each kept for their own computer: one key per device', async () => {
  const { va, vb, sync } = await twoComputers(root, true, async (v) => {
    // A draft kept before several computers wrote the vault: still offered, until discarded.
    await v.internal.putJSON('drafts/chat', { text: 'typed before the upgrade' });
  });
  const [ka, kb] = [new DraftKeeper(), new DraftKeeper()];
  await ka.put(va, { kind: 'memory', draft: { path: '/memories/a.md', text: 'draft on A', baseVersion: 0 } });
  await kb.put(vb, { kind: 'memory', draft: { path: '/memories/b.md', text: 'draft on B', baseVersion: 0 } });
  expect(await ka.persist(va)).toEqual({ drafts: {} });
  expect(await kb.persist(vb)).toEqual({ drafts: {} });
  await sync();
  expect((await new DraftKeeper().all(va)).memory?.text).toBe('draft on A');
  expect((await new DraftKeeper().all(vb)).memory?.text).toBe('draft on B');
  expect((await new DraftKeeper().all(vb)).chat?.text).toBe('typed before the upgrade');
  // Discarded on B: B's own and the old one go; A's draft stays A's.
  await new DraftKeeper().put(vb, { kind: 'memory', draft: null });
  await new DraftKeeper().put(vb, { kind: 'chat', draft: null });
  await sync();
  expect(await new DraftKeeper().all(vb)).toEqual({});
  expect(await new DraftKeeper().all(va)).toEqual({ memory: { path: '/memories/a.md', text: 'draft on A', baseVersion: 0 } });
  await va.close();
  await vb.close();
});

it('open edits of messages are kept per computer too, under the device key of the edit kind', async () => {
  const { va, vb, sync } = await twoComputers(root, true);
  const edit = (text: string) => [{ conversationId: '0123456789abcdef', entry: 2, text }];
  const [ka, kb] = [new DraftKeeper(), new DraftKeeper()];
  await ka.put(va, { kind: 'edit', draft: edit('edit on A') });
  await kb.put(vb, { kind: 'edit', draft: edit('edit on B') });
  expect(await ka.persist(va)).toEqual({ drafts: {} });
  expect(await kb.persist(vb)).toEqual({ drafts: {} });
  await sync();
  expect(va.internal.keys('drafts/').filter((k) => k.endsWith('/edit')).sort()).toEqual([`drafts/${await va.internal.device!(false)}/edit`, `drafts/${await vb.internal.device!(false)}/edit`].sort());
  expect((await new DraftKeeper().all(va)).edit).toEqual(edit('edit on A'));
  expect((await new DraftKeeper().all(vb)).edit).toEqual(edit('edit on B'));
  await new DraftKeeper().put(vb, { kind: 'edit', draft: null });
  await sync();
  expect(await new DraftKeeper().all(vb)).toEqual({});
  expect((await new DraftKeeper().all(va)).edit).toEqual(edit('edit on A'));
  await va.close();
  await vb.close();
});

it('review marks made on two computers at once are all kept: one value per project and device', async () => {
  const { va, vb, sync } = await twoComputers(root, true, async (v) => {
    for (const n of ['m1', 'm2', 'm3']) await v.memory.writeFile(`/memories/${n}.md`, `${n} by Claude`, { mode: 'create', source: 'claude' });
    // Marked before the upgrade: still acknowledged after it.
    await new ReviewInbox(reviewVault(v)).mark(FIRST_PROJECT_ID, [{ path: '/memories/m3.md', version: 1 }]);
  });
  const [ia, ib] = [new ReviewInbox(reviewVault(va)), new ReviewInbox(reviewVault(vb))];
  expect((await ia.list()).map((e) => e.path)).toEqual(['/memories/m1.md', '/memories/m2.md']);
  await ia.mark(FIRST_PROJECT_ID, [{ path: '/memories/m1.md', version: 1 }]);
  await ib.mark(FIRST_PROJECT_ID, [{ path: '/memories/m2.md', version: 1 }]);
  await sync();
  for (const v of [va, vb]) expect(await new ReviewInbox(reviewVault(v)).list()).toEqual([]);
  // Claude changes m1 on B: to review on both, until one of them marks it.
  await vb.memory.writeFile('/memories/m1.md', 'm1 changed by Claude', { mode: 'update', source: 'claude' });
  await sync();
  for (const v of [va, vb]) expect((await new ReviewInbox(reviewVault(v)).list()).map((e) => `${e.path} v${e.version}`)).toEqual(['/memories/m1.md v2']);
  await ia.mark(FIRST_PROJECT_ID, [{ path: '/memories/m1.md', version: 2 }]);
  await sync();
  for (const v of [va, vb]) expect(await new ReviewInbox(reviewVault(v)).list()).toEqual([]);
  await ia.idle();
  await ib.idle();
  await va.close();
  await vb.close();
});

it('a computer sweeps only what it wrote: another computer\'s attachment arriving before its conversation is kept', async () => {
  const { va, vb, sync } = await twoComputers(root, true, async (v) => {
    // Left over here before the upgrade (a crash while deleting): still swept.
    await v.internal.put('attachments/00000000000000aa/00000000000000bb', new Uint8Array([1]));
  });
  // A stores an attachment first, then its conversation's head: B gets the attachment alone first.
  const id = '0123456789abcdef';
  await new Conversations(va).putAttachment(id, 'fedcba9876543210', new Uint8Array([7, 7]));
  await sync();
  expect(await new Conversations(vb).list()).toEqual([]);
  await new Conversations(vb).pruneAttachments(id, new Set());
  expect(vb.internal.keys('attachments/')).toEqual([`attachments/${id}/fedcba9876543210`]);
  const now = Date.now();
  await new Conversations(va).save({ id, title: 'With a file', created: now, updated: now, messages: [], transcript: [] });
  await sync();
  for (const v of [va, vb]) {
    expect(await new Conversations(v).getAttachment(id, 'fedcba9876543210')).toEqual(new Uint8Array([7, 7]));
    expect((await new Conversations(v).list()).map((c) => c.id)).toEqual([id]);
  }
  await va.close();
  await vb.close();
});

it('the conversation list shows what another computer changed: each computer keeps its own index, checked against the heads', async () => {
  const now = Date.now();
  const x = { id: '00000000000000a1', title: 'Before', created: now, updated: now, messages: [], transcript: [] };
  const { va, vb, sync } = await twoComputers(root, true, async (v) => {
    await new Conversations(v).save(x);
  });
  const [ca, cb] = [new Conversations(va), new Conversations(vb)];
  expect((await cb.list()).map((c) => c.title)).toEqual(['Before']);
  await ca.rename(x.id, 'Renamed on A');
  await cb.save({ ...x, id: '00000000000000b2', title: 'New on B', updated: now + 1 });
  await sync();
  for (const v of [va, vb]) expect(new Set((await new Conversations(v).list()).map((c) => c.title))).toEqual(new Set(['Renamed on A', 'New on B']));
  await va.close();
  await vb.close();
});
