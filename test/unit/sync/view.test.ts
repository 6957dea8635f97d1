/**
 * What two or three devices see after writing at once (docs/sync-design.md
 * §2.4): each case is written as the promise the user is made.
 */
import { expect, it } from 'vitest';
import { forgetOp, kdelOp, kputOp, materializeOp, mkdirOp, mvOp, purgeOp, putOp, regOp, rmOp } from '../../../electron/core/vault/sync/build';
import { ROOT } from '../../../electron/core/vault/sync/crdt';
import { compareHlc } from '../../../electron/core/vault/sync/hlc';
import { liveBlobs } from '../../../electron/core/vault/sync/blobs2';
import { World, type Device } from './sim';

const P = '/memories/prefs.md';
const lines = (...l: string[]) => l.join('\n') + '\n';
const BASE = lines('# Prefs', 'one', 'two', 'three', 'four', 'five');

function write(d: Device, p: string, text: string) {
  return d.commit(putOp(d.view(), p, d.world.texts.add(text), d.nextVid(), { kind: 'user' }));
}
/** A and B both hold `P` with BASE. */
function shared(skews?: number[]) {
  const w = new World(skews);
  const [a, b, c] = w.devices as [Device, Device, Device];
  write(a, P, BASE);
  b.receive(a);
  c.receive(a);
  return { w, a, b, c };
}
const sync = (...ds: Device[]) => {
  for (const d of ds) for (const e of ds) if (d !== e) d.receive(e);
  for (const d of ds) for (const e of ds) if (d !== e) d.receive(e);
};

it('edits on different lines are merged, and the merge is current on every device', () => {
  const { w, a, b } = shared();
  write(a, P, BASE.replace('one', 'one (laptop)'));
  w.now += 1000;
  write(b, P, BASE.replace('five', 'five (desktop)'));
  sync(a, b);
  const merged = BASE.replace('one', 'one (laptop)').replace('five', 'five (desktop)');
  for (const d of [a, b]) {
    expect(d.view().resolve(P)).toMatchObject({ kind: 'merge', text: merged });
    expect(d.text(P)).toBe(merged);
    expect(d.view().conflicts()).toEqual([]);
  }
  // Written down by one device, it is one head again everywhere, and the same text.
  const v = a.view();
  a.commit(materializeOp(v, P, w.texts.add(merged))!);
  sync(a, b);
  expect(b.view().resolve(P)).toMatchObject({ kind: 'single' });
  expect(b.text(P)).toBe(merged);
});

it('overlapping edits: the newest is current, the other is kept as a version and listed as a conflict', () => {
  const { w, a, b } = shared();
  const older = write(a, P, BASE.replace('two', 'two (laptop)'));
  w.now += 1000;
  const newer = write(b, P, BASE.replace('two', 'two (desktop)'));
  sync(a, b);
  const v = a.view();
  const winner = `${b.id}:${newer.seq}`;
  const loser = `${a.id}:${older.seq}`;
  expect(v.resolve(P)).toMatchObject({ kind: 'conflict', winner, losers: [loser], base: `${a.id}:1` });
  expect(a.text(P)).toBe(BASE.replace('two', 'two (desktop)'));
  const versions = v.versions(P);
  expect(versions.at(-1)).toMatchObject({ vid: winner, current: true, device: b.id });
  expect(versions.find((e) => e.vid === loser)).toMatchObject({ current: false });
  expect(v.conflicts()).toEqual([{ kind: 'conflict', what: 'edit', path: P, fid: `${a.id}:1`, winner, losers: [loser], base: `${a.id}:1` }]);
  expect(v.stat(P)).toMatchObject({ kind: 'file', version: versions.at(-1)!.version });
  // Both devices write the conflict down at once: the two records collapse, with no ping-pong.
  a.commit(materializeOp(a.view(), P)!);
  b.commit(materializeOp(b.view(), P)!);
  sync(a, b);
  expect(a.view().resolve(P)).toMatchObject({ kind: 'single' });
  expect(a.text(P)).toBe(BASE.replace('two', 'two (desktop)'));
  const listed = a.view().conflicts();
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ what: 'edit', winner, losers: [loser], vid: expect.any(String) });
});

it('a write over a conflict no device recorded yet settles it and keeps it listed for review', () => {
  const { w, a, b } = shared();
  const older = write(a, P, BASE.replace('two', 'two (laptop)'));
  w.now += 1000;
  const newer = write(b, P, BASE.replace('two', 'two (desktop)'));
  sync(a, b);
  const settled = write(a, P, BASE.replace('two', 'two (both)'));
  sync(a, b);
  const v = b.view();
  expect(v.resolve(P)).toMatchObject({ kind: 'single', vid: `${a.id}:${settled.seq}` });
  expect(v.versions(P).map((e) => e.vid)).toEqual([`${a.id}:1`, `${a.id}:${older.seq}`, `${b.id}:${newer.seq}`, `${a.id}:${settled.seq}`]);
  expect(v.conflicts()).toEqual([{ kind: 'conflict', what: 'edit', path: P, fid: `${a.id}:1`, winner: `${a.id}:${settled.seq}`, losers: [`${a.id}:${older.seq}`], vid: `${a.id}:${settled.seq}` }]);
});

it('an edit wins over a concurrent delete: the memory stays and the delete is listed for review', () => {
  const { w, a, b } = shared();
  w.now += 1000;
  a.commit(rmOp(a.view(), P, { kind: 'claude' }));
  w.now += 1000;
  write(b, P, BASE + 'six\n');
  sync(a, b);
  const v = a.view();
  expect(v.stat(P)).toMatchObject({ kind: 'file' });
  expect(a.text(P)).toBe(BASE + 'six\n');
  expect(v.conflicts()).toEqual([expect.objectContaining({ what: 'delete', path: P, device: a.id, by: { kind: 'claude' } })]);
  expect(v.trashed()).toEqual([]);
  // A later write answers the delete: it is no longer listed.
  write(a, P, BASE + 'seven\n');
  expect(a.view().conflicts()).toEqual([]);
});

it('a delete that saw every version sends the memory to the trash; restoring brings its history back', () => {
  const { a } = shared();
  write(a, P, BASE + 'more\n');
  a.commit(rmOp(a.view(), P, { kind: 'user' }));
  const v = a.view();
  expect(v.stat(P)).toBeUndefined();
  expect(v.trashed()).toEqual([expect.objectContaining({ path: P, deleted: a.world.now, by: { kind: 'user' } })]);
  expect(v.trashed()[0]!.versions.map((e) => e.version)).toEqual([1, 2]);
  write(a, P, BASE);
  expect(a.view().versions(P).map((e) => [e.version, e.current])).toEqual([
    [1, false],
    [2, false],
    [3, true],
  ]);
  expect(a.view().conflicts()).toEqual([]);
});

it('a clock six hours off on either side never lets a causally later write lose', () => {
  for (const skews of [
    [6 * 3600_000, 0, 0],
    [-6 * 3600_000, 0, 0],
    [0, 6 * 3600_000, 0],
    [0, -6 * 3600_000, 0],
  ]) {
    const { w, a, b } = shared(skews);
    write(a, P, 'from laptop\n');
    b.receive(a);
    w.now += 10;
    const later = write(b, P, 'desktop, after reading the laptop\n');
    sync(a, b);
    expect(a.text(P), JSON.stringify(skews)).toBe('desktop, after reading the laptop\n');
    expect(a.view().conflicts()).toEqual([]);
    expect(a.view().versions(P).at(-1)!.vid).toBe(`${b.id}:${later.seq}`);
  }
  // Even a stamp from far behind (a device that never saw the other's clock) cannot undo what it replaced.
  const { a, b } = shared([0, 0, 0]);
  const ahead = a.commit(putOp(a.view(), P, a.world.texts.add('ahead\n'), a.nextVid()), [a.world.now + 6 * 3600_000, 0]);
  b.receive(a);
  const behind = b.commit(putOp(b.view(), P, b.world.texts.add('behind but later\n'), b.nextVid()), [1, 0]);
  expect(compareHlc(behind.h, ahead.h)).toBeLessThan(0);
  sync(a, b);
  expect(a.text(P)).toBe('behind but later\n');
});

it('two files created at one path apart are shown as one, in conflict, and the next write absorbs the other', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  write(a, P, 'laptop\n');
  w.now += 5;
  write(b, P, 'desktop\n');
  sync(a, b);
  const v = a.view();
  expect(v.list(ROOT, Infinity).map((e) => e.path)).toEqual([P]);
  expect(v.resolve(P)).toMatchObject({ kind: 'conflict', winner: `${b.id}:1`, losers: [`${a.id}:1`] });
  expect(v.fidAt(P)).toBe(`${a.id}:1`);
  expect([v.heads(`${a.id}:1`), v.aliveHeads(`${b.id}:1`), v.pathOf(`${b.id}:1`)]).toEqual([[`${a.id}:1`], [`${b.id}:1`], P]);
  write(a, P, 'settled\n');
  sync(a, b);
  expect(b.view().resolve(P)).toMatchObject({ kind: 'single' });
  expect(b.view().versions(P).map((e) => e.vid)).toEqual([`${a.id}:1`, `${b.id}:1`, `${a.id}:2`]);
});

it('concurrent renames: the later one names the file; an edit follows the file wherever it went', () => {
  const { w, a, b, c } = shared();
  a.commit(mvOp(a.view(), P, '/memories/laptop.md'));
  w.now += 1000;
  b.commit(mvOp(b.view(), P, '/memories/desktop.md'));
  write(c, P, BASE + 'edited on the third\n');
  sync(a, b, c);
  const v = a.view();
  expect(v.list(ROOT, Infinity).map((e) => e.path)).toEqual(['/memories/desktop.md']);
  expect(a.text('/memories/desktop.md')).toBe(BASE + 'edited on the third\n');
});

it('a folder deleted while another device adds a file to it keeps the folder and the new file only', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  a.commit(mkdirOp('/memories/work'));
  write(a, '/memories/work/old.md', 'old\n');
  b.receive(a);
  a.commit(rmOp(a.view(), '/memories/work'));
  write(b, '/memories/work/new.md', 'new\n');
  sync(a, b);
  expect(a.view().list(ROOT, Infinity).map((e) => `${e.kind} ${e.path}`)).toEqual(['dir /memories/work', 'file /memories/work/new.md']);
  expect(a.view().trashed().map((t) => t.path)).toEqual(['/memories/work/old.md']);
});

it('a folder moved while another device adds a file under its old path: the new file stays at the old path', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  write(a, '/memories/work/old.md', 'old\n');
  b.receive(a);
  a.commit(mvOp(a.view(), '/memories/work', '/memories/job'));
  write(b, '/memories/work/new.md', 'new\n');
  sync(a, b);
  expect(a.view().list(ROOT, Infinity).map((e) => `${e.kind} ${e.path}`)).toEqual(['dir /memories/job', 'file /memories/job/old.md', 'dir /memories/work', 'file /memories/work/new.md']);
});

it('a file whose path became a folder on another device is shown beside it, not hidden', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  write(a, '/memories/x', 'a file\n');
  write(b, '/memories/x/inside.md', 'in a folder\n');
  sync(a, b);
  const paths = a.view().list(ROOT, Infinity).map((e) => `${e.kind} ${e.path}`);
  expect(paths).toEqual(['dir /memories/x', `file /memories/x.conflict-${a.id.slice(0, 8)}-1`, 'file /memories/x/inside.md']);
  // Renaming it settles the clash.
  a.commit(mvOp(a.view(), `/memories/x.conflict-${a.id.slice(0, 8)}-1`, '/memories/x.md'));
  expect(a.text('/memories/x.md')).toBe('a file\n');
});

it('emptying the trash while another device edits the file: the edit survives, without the purged history', () => {
  const { a, b } = shared();
  a.commit(rmOp(a.view(), P));
  a.commit(purgeOp(a.view())!);
  expect(a.view().trashed()).toEqual([]);
  write(b, P, BASE + 'kept\n');
  sync(a, b);
  expect(a.text(P)).toBe(BASE + 'kept\n');
  expect(a.view().versions(P).map((e) => e.vid)).toEqual([`${b.id}:1`]);
});

it('history keeps the newest `depth` versions; a forgotten base turns a would-be merge into a conflict', () => {
  const { w, a, b } = shared();
  a.commit(regOp(a.view(), 'depth', 2));
  for (let i = 0; i < 4; i++) write(a, P, BASE + `v${i}\n`);
  expect(a.view().history(P).map((e) => e.version)).toEqual([3, 4]);
  a.commit(forgetOp(a.view())!);
  expect(a.view().versions(P).map((e) => e.version)).toEqual([3, 4, 5]);
  // B edits the first version, whose bytes A forgot: no base, so no merge.
  w.now += 1000;
  write(b, P, BASE.replace('one', 'one (b)'));
  sync(a, b);
  expect(a.view().resolve(P)).toMatchObject({ kind: 'conflict', winner: `${b.id}:1` });
  expect(a.view().resolve(P)).not.toHaveProperty('base');
});

it('concurrent history depths: the larger wins (keeping more is the protective choice)', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  a.commit(regOp(a.view(), 'depth', 5));
  w.now += 1000;
  b.commit(regOp(b.view(), 'depth', 3));
  sync(a, b);
  expect(a.view().depth()).toBe(5);
  b.commit(regOp(b.view(), 'depth', 3));
  expect(b.view().depth()).toBe(3);
});

it('internal values: concurrent puts keep the newest with a notice; a delete does not remove a value it did not see', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  const put = (d: Device, k: string, v: unknown) => d.commit(kputOp(d.view(), k, w.texts.add(JSON.stringify(v)).b));
  put(a, 'models', ['m1']);
  b.receive(a);
  put(a, 'models', ['m2']);
  w.now += 1000;
  put(b, 'models', ['m3']);
  sync(a, b);
  expect(a.view().kv.get('models', w.texts.readKv)).toMatchObject({ kind: 'merged', value: ['m3'], notices: [{ key: 'models', kept: `${b.id}:1`, lost: `${a.id}:2`, what: 'value' }] });
  a.commit(kdelOp(a.view(), 'models')!);
  put(b, 'models', ['m4']);
  sync(a, b);
  expect(a.view().kv.keys('')).toEqual(['models']);
  expect(a.view().kv.get('models', w.texts.readKv)).toMatchObject({ kind: 'single' });
});

it("a value its key's one head replaced is forgotten only once every computer has seen the head: an offline computer's change still merges against it", () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  const put = (d: Device, k: string, v: unknown) => d.commit(kputOp(d.view(), k, w.texts.add(JSON.stringify(v)).b));
  const settings = (d: Device) => d.view().kv.get('settings', w.texts.readKv);
  const first = put(a, 'settings', { x: 1, y: 1 });
  const base = `${a.id}:${first.seq}`;
  const baseBlob = first.op.t === 'kput' ? first.op.b.id : '';
  b.receive(a);
  put(b, 'other', 1);
  a.receive(b);
  // a changes x; b, offline, changes y. a's compactor must not forget the base: b has not seen a's change.
  put(a, 'settings', { x: 2, y: 1 });
  put(b, 'settings', { x: 1, y: 2 });
  expect(forgetOp(a.view(), a.id)?.vs ?? []).not.toContain(base);
  expect(liveBlobs(a.state).has(baseBlob)).toBe(true);
  sync(a, b);
  for (const d of [a, b]) expect(settings(d)).toMatchObject({ kind: 'merged', value: { x: 2, y: 2 } });
  // Written down by a, seen by b (which writes again): now every value before it is forgotten, by either computer.
  const merged = put(a, 'settings', { x: 2, y: 2 });
  expect(forgetOp(a.view(), a.id)?.vs ?? []).not.toContain(base);
  b.receive(a);
  put(b, 'other', 2);
  a.receive(b);
  const forget = forgetOp(a.view(), a.id)!;
  expect(forget.vs).toEqual(expect.arrayContaining([base, `${a.id}:${merged.seq - 1}`, `${b.id}:${b.seq - 1}`]));
  expect(forget.vs).not.toContain(`${a.id}:${merged.seq}`);
  a.commit(forget);
  expect(liveBlobs(a.state).has(baseBlob)).toBe(false);
  expect(settings(a)).toMatchObject({ kind: 'single', vid: `${a.id}:${merged.seq}` });
});

it("a forgotten base is no base, on every computer alike, and its bytes are never asked for", () => {
  const w = new World();
  const [a, b, c] = w.devices as [Device, Device, Device];
  const put = (d: Device, v: unknown) => d.commit(kputOp(d.view(), 'settings', w.texts.add(JSON.stringify(v)).b));
  const first = put(a, { x: 1, y: 1 });
  const base = `${a.id}:${first.seq}`;
  b.receive(a);
  put(a, { x: 2, y: 1 });
  w.now += 1000;
  put(b, { x: 1, y: 2 });
  b.receive(a);
  expect(b.view().kv.get('settings', w.texts.readKv)).toMatchObject({ kind: 'merged', value: { x: 2, y: 2 } });
  a.commit({ t: 'forget', vs: [base] });
  c.receive(b);
  c.receive(a);
  sync(a, b);
  const asked: string[] = [];
  const reader = (bytes: Parameters<typeof w.texts.readKv>[0], vid: string) => (asked.push(vid), w.texts.readKv(bytes, vid));
  // Each field both heads hold differently counts as changed on both: the newest head's.
  for (const d of [a, b, c]) expect(d.view().kv.get('settings', reader)).toMatchObject({ kind: 'merged', value: { x: 1, y: 2 } });
  expect(asked).not.toContain(base);
  expect(asked.length).toBe(6);
});
