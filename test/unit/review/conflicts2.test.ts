/**
 * Conflicts in the review inbox (format 2): a memory two computers changed at once, and one deleted on a computer
 * while edited on another, are listed on both computers with the versions and computers involved, until marked on
 * either (the mark travels with the vault) or settled by a save of the user's. Two computers are two state folders on
 * copies of one vault folder, carried as a sync engine would (sync/two-computers.ts).
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
import type { ReviewEntry } from '../../../electron/core/review/inbox';
import { Vault } from '../../../electron/core/vault/vault';
import { FLOOR, PASS } from '../sync/two-computers';
import { conflictRoom } from './conflict-room';
import { claude, user } from './helpers';

const { room, computers, inbox, conflicts, keep } = conflictRoom('review-conflicts');
const devOf = async (v: Vault) => (await v.internal.device!(true))!;
const markConflict = (v: Vault, e: ReviewEntry, project = FIRST_PROJECT_ID) => inbox(v).mark(project, [{ path: e.path, version: e.version, conflict: e.conflict!.id }]);

/** A memory Claude wrote on A, carried to B, then changed on both at once on the same line. */
async function overlappingEdit(c: Awaited<ReturnType<typeof computers>>, p = '/memories/plan.md') {
  await claude(c.va, p, 'title\nmeet on monday\n');
  await c.sync();
  await claude(c.va, p, 'title\nmeet on tuesday\n');
  await user(c.vb, p, 'title\nmeet on friday\n');
  await c.sync();
}

it('an overlapping edit on two computers is listed on both, naming the version that won, the one set aside and both computers', async () => {
  const c = await computers();
  await c.vb.renameDevice(await devOf(c.vb), 'Laptop');
  await c.va.renameDevice(await devOf(c.va), 'Desk');
  await c.sync();
  await overlappingEdit(c);
  const p = '/memories/plan.md';
  for (const v of [c.va, c.vb]) {
    const list = await conflicts(v);
    expect(list).toHaveLength(1);
    const [e] = list as [ReviewEntry];
    const text = await v.memory.readFile(p);
    // The winner is current; the other text is a version of its history.
    expect(e).toMatchObject({ path: p, kind: 'conflict', version: v.versions(p).at(-1)!.version, conflict: { what: 'edit' } });
    expect(e.conflict!.versions).toHaveLength(1);
    const lost = e.conflict!.versions[0]!;
    const texts = [text, await v.readVersion(p, lost)].sort();
    expect(texts).toEqual(['title\nmeet on friday\n', 'title\nmeet on tuesday\n']);
    expect(new Set(e.conflict!.computers)).toEqual(new Set(['Desk', 'Laptop']));
  }
  // Both computers list the same conflict, under the same id.
  expect((await conflicts(c.va)).map((e) => e.conflict!.id)).toEqual((await conflicts(c.vb)).map((e) => e.conflict!.id));
  // It counts toward the project's number to review.
  expect((await inbox(c.va).counts())[FIRST_PROJECT_ID]).toBe((await inbox(c.va).list()).length);
}, 60_000);

it('an edit conflict names the version both sides started from, before and after a write records it, for a merge view to show', async () => {
  const c = await computers();
  await overlappingEdit(c);
  const p = '/memories/plan.md';
  for (const v of [c.va, c.vb]) {
    const [e] = (await conflicts(v)) as [ReviewEntry];
    expect(e.conflict!.base).toBeDefined();
    expect(await v.readVersion(p, e.conflict!.base!)).toBe('title\nmeet on monday\n');
  }
  // Claude writes on over it, which records the conflict (its losers named): the base is still the same version.
  await claude(c.va, p, 'title\nmeet on tuesday\nbring notes\n');
  await c.sync();
  for (const v of [c.va, c.vb]) {
    const [e] = (await conflicts(v)) as [ReviewEntry];
    expect(await v.readVersion(p, e.conflict!.base!)).toBe('title\nmeet on monday\n');
  }
}, 60_000);

it('a delete on one computer that met an edit on the other is listed on both: the edit is kept, the delete is to review', async () => {
  const c = await computers();
  const p = '/memories/gone.md';
  await claude(c.va, p, 'keep me\n');
  await c.sync();
  await c.va.memory.remove(p, 'user');
  await claude(c.vb, p, 'keep me, edited\n');
  await c.sync();
  const devA = await devOf(c.va);
  for (const v of [c.va, c.vb]) {
    expect(await v.memory.readFile(p)).toBe('keep me, edited\n');
    const [e, ...more] = await conflicts(v);
    expect(more).toEqual([]);
    expect(e).toMatchObject({ path: p, kind: 'conflict', version: 2, conflict: { what: 'delete', versions: [1] }, by: { kind: 'user' } });
    expect(e!.conflict!.computers[0]).toBe((await v.devices()).find((d) => d.id === devA)!.name || devA);
  }
}, 60_000);

it('marked on one computer, a conflict is gone there at once and on the other once the mark has arrived', async () => {
  const c = await computers();
  await overlappingEdit(c);
  const [e] = (await conflicts(c.vb)) as [ReviewEntry];
  expect(await markConflict(c.vb, e)).toBe(1);
  expect(await conflicts(c.vb)).toEqual([]);
  // Not arrived yet: still listed on A.
  expect(await conflicts(c.va)).toHaveLength(1);
  await c.sync();
  expect(await conflicts(c.va)).toEqual([]);
  // Marked on both at once (each its own record): both marks kept, nothing listed again.
  await overlappingEdit(c, '/memories/other.md');
  const [x] = (await conflicts(c.va)) as [ReviewEntry];
  await markConflict(c.va, x);
  await markConflict(c.vb, x);
  await c.sync();
  for (const v of [c.va, c.vb]) expect(await conflicts(v)).toEqual([]);
  // A mark of something not listed (a made-up id, another path) marks nothing.
  expect(await inbox(c.va).mark(FIRST_PROJECT_ID, [{ path: '/memories/plan.md', version: 1, conflict: 'e:nothing' }])).toBe(0);
  expect(await inbox(c.va).mark(FIRST_PROJECT_ID, [{ path: '/memories/none.md', version: 1, conflict: x.conflict!.id }])).toBe(0);
}, 60_000);

it("a save of the user's over the conflict settles it on every computer; Claude writing over it does not", async () => {
  const c = await computers();
  await overlappingEdit(c);
  const p = '/memories/plan.md';
  // Claude writes on over the conflict: the text set aside is still not looked at.
  await claude(c.va, p, 'title\nmeet on tuesday\nbring notes\n');
  await c.sync();
  for (const v of [c.va, c.vb]) expect(await conflicts(v)).toHaveLength(1);
  // The user saves a merged text on B.
  await user(c.vb, p, 'title\nmeet on tuesday or friday\nbring notes\n');
  expect(await conflicts(c.vb)).toEqual([]);
  await c.sync();
  expect(await conflicts(c.va)).toEqual([]);
}, 60_000);

it('a conflict in another project is listed there only', async () => {
  const c = await computers();
  const trip = await new Projects(c.va).create('Trip');
  await c.sync();
  const tripVault = await new Projects(c.va).memoryScope(trip.id);
  await overlappingEdit(c, tripVault.toVault('/memories/plan.md'));
  expect(await conflicts(c.va)).toEqual([]);
  expect(await conflicts(c.vb)).toEqual([]);
  for (const v of [c.va, c.vb]) expect((await conflicts(v, trip.id)).map((e) => e.path)).toEqual(['/memories/plan.md']);
  expect((await inbox(c.va).counts())[FIRST_PROJECT_ID]).toBe((await inbox(c.va).list()).length);
  // A project's view of the vault (what Claude's memory tool works in) sees its own conflicts only, in its own terms.
  expect((await new Projects(c.va).memoryVault(trip.id)).conflicts().map((x) => x.path)).toEqual(['/memories/plan.md']);
  expect((await new Projects(c.va).memoryVault(FIRST_PROJECT_ID)).conflicts()).toEqual([]);
  // Marking in the first project by the other project's id marks nothing.
  const [e] = (await conflicts(c.va, trip.id)) as [ReviewEntry];
  expect(await markConflict(c.va, e)).toBe(0);
  expect(await markConflict(c.va, e, trip.id)).toBe(1);
  expect(await conflicts(c.va, trip.id)).toEqual([]);
}, 60_000);

it('a vault only this computer writes lists no conflict and stores its marks as before', async () => {
  const { vault: v } = await Vault.create(path.join(room.root, 'v1'), PASS, { kdf: FLOOR, stateDir: path.join(room.root, 's1'), format2: false });
  keep(v);
  await claude(v, '/memories/one.md', 'one\n');
  expect(v.conflicts()).toEqual([]);
  expect((await inbox(v).list()).map((e) => e.kind)).toEqual(['new']);
  expect(await inbox(v).mark(FIRST_PROJECT_ID, [{ path: '/memories/one.md', version: 1, conflict: 'e:x' }])).toBe(0);
  await inbox(v).mark(FIRST_PROJECT_ID, [{ path: '/memories/one.md', version: 1 }]);
  expect(await v.internal.getJSON(`review/${FIRST_PROJECT_ID}`)).toEqual({ files: { '/memories/one.md': expect.any(Object) } });
  expect(await inbox(v).list()).toEqual([]);
}, 60_000);
