/**
 * Attacks on the forgetting of internal values (docs/sync-design.md §12.4): the compactor's `forget` names what a
 * key's one head replaced once every known computer has seen the head, `liveBlobs` keeps every other value, a
 * forgotten base is no base. Pure worlds (sim.ts) for the rules and the cost; real vaults on disk in
 * attack-forget-vaults.test.ts.
 */
import { expect, it } from 'vitest';
import { forgetOp, kdelOp, kputOp } from '../../../electron/core/vault/sync/build';
import { liveBlobs } from '../../../electron/core/vault/sync/blobs2';
import { encodeState } from '../../../electron/core/vault/sync/canonical';
import { joinInto, emptyState } from '../../../electron/core/vault/sync/crdt';
import { KvView } from '../../../electron/core/vault/sync/kv';
import { announce, compact, put, sync, valueOf } from './forget-world';
import { World, stateOf, type Device } from './sim';
import { DEEP } from '../../deep';

/** Keys of the cost case: 10,000 under MNEMO_DEEP=1, a sample in `npm test`. */
const KEYS = DEEP ? 10_000 : 1_000;


// Was a bug (data loss, c7fd8c8): a value was forgotten as soon as ANY computer checkpointed (at every close) while its
// key had one head there, though a computer that was offline could still write a value replacing it. When that write
// arrived, the merge had no base, so every field counted as changed on both sides and the newest head's value won: a
// field only the offline computer changed was reverted on every computer, with only a notice. Now a value is forgotten
// only once every computer known (each says it is there when it first unlocks) has seen what replaced it.
it('an offline computer changes a setting no one else touched; another computer changes another and checkpoints: both changes survive the sync', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  const first = put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  announce(b, a);
  // b goes offline and changes only the theme.
  put(w, b, 'settings', { theme: 'dark', fontSize: 12 });
  // a changes only the font size, later, and closes (a checkpoint: its forget must not name the first value).
  w.now += 60_000;
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  const f = compact(a);
  expect(f?.op.t === 'forget' ? f.op.vs : []).not.toContain(`${a.id}:${first.seq}`);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual(valueOf(w, b, 'settings'));
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

it('control: the same edits without a checkpoint in between merge three-way, both changes kept', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  put(w, b, 'settings', { theme: 'dark', fontSize: 12 });
  w.now += 60_000;
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  sync(a, b);
  for (const d of [a, b]) expect(valueOf(w, d, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

// Was a bug (same cause, user-visible in chat): a conversation renamed on an offline computer while another computer
// added a turn and closed: the rename was lost on every computer (meta.title three-way without a base: the newest won).
it('a conversation renamed on an offline computer keeps its new name when the other computer added a turn and checkpointed', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  const K = 'conversations/00000000000000c1';
  const head = (logs: number, title: string, updated: number) => ({
    v: 2,
    logs: { [a.id]: logs },
    entries: logs * 2,
    meta: { id: '00000000000000c1', title, created: 1, updated },
  });
  put(w, a, K, head(1, 'Trip', 1));
  b.receive(a);
  announce(b, a);
  put(w, b, K, head(1, 'Trip to Rome', 2));
  w.now += 60_000;
  put(w, a, K, head(2, 'Trip', 3));
  compact(a);
  sync(a, b);
  expect(valueOf(w, a, K)).toEqual(valueOf(w, b, K));
  expect((valueOf(w, a, K) as { meta: { title: string } }).meta.title).toBe('Trip to Rome');
});

it('after a long offline write against a forgotten value, every computer agrees, no head is forgotten and the heads stay live', () => {
  const w = new World();
  const [a, b, c] = w.devices as [Device, Device, Device];
  put(w, a, 'settings', { x: 1, y: 1 });
  sync(a, b, c);
  put(w, c, 'settings', { x: 1, y: 9 }); // c offline from here
  for (let i = 2; i < 30; i++) {
    w.now += 1000;
    put(w, i % 2 ? a : b, 'settings', { x: i, y: 1 });
    sync(a, b);
    compact(i % 2 ? b : a);
  }
  sync(a, b, c);
  const all = w.all();
  const vals = [a, b, c].map((d) => JSON.stringify(valueOf(w, d, 'settings')));
  expect(new Set(vals).size).toBe(1);
  const kv = new KvView(all);
  const heads = kv.heads('settings');
  expect(heads.length).toBe(2);
  for (const h of heads) expect(all.forgotten.has(h)).toBe(false);
  for (const d of [a, b, c]) for (const h of heads) expect(liveBlobs(d.state).has(all.kv.get('settings')!.vals.get(h)!.b.id)).toBe(true);
  // No base (forgotten), on every computer alike.
  for (const d of [a, b, c]) expect(d.view().kv.mergeInputs('settings')!.base).toBeUndefined();
  // A write settles it; once the others have seen it (they write again), the next compaction forgets both old heads.
  put(w, c, 'settings', valueOf(w, c, 'settings'));
  compact(c);
  expect(c.state.forgotten.has(heads[0]!) || c.state.forgotten.has(heads[1]!)).toBe(false);
  sync(a, b, c);
  announce(a, c);
  announce(b, c);
  compact(c);
  sync(a, b, c);
  expect(new KvView(c.state).heads('settings').length).toBe(1);
  expect(c.state.forgotten.has(heads[0]!) && c.state.forgotten.has(heads[1]!)).toBe(true);
});

it('a delete forgotten on one computer and two concurrent puts replacing the deleted value: all agree, no base, heads live', () => {
  const w = new World();
  const [a, b, c] = w.devices as [Device, Device, Device];
  const v1 = put(w, a, 'projects/p1', { name: 'One', created: 1 });
  sync(a, b, c);
  a.commit(kdelOp(a.view(), 'projects/p1')!);
  const f = compact(a);
  expect(f?.op.t === 'forget' && f.op.vs).toContain(`${a.id}:${v1.seq}`);
  put(w, b, 'projects/p1', { name: 'Two', created: 1 });
  w.now += 10;
  put(w, c, 'projects/p1', { name: 'Three', created: 1 });
  sync(a, b, c);
  const vals = [a, b, c].map((d) => JSON.stringify(valueOf(w, d, 'projects/p1')));
  expect(new Set(vals).size).toBe(1);
  expect(JSON.parse(vals[0]!)).toEqual({ name: 'Three', created: 1 });
  for (const d of [a, b, c]) expect(d.view().kv.mergeInputs('projects/p1')!.base).toBeUndefined();
});

/** A small seeded generator (mulberry32). */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

it('random puts, deletes, partial syncs and checkpoints on three computers: once all is delivered they agree, no head is forgotten, every head and base is live at its writer', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const w = new World();
    const ds = w.devices as Device[];
    const keys = ['settings', 'projects/p1', 'conversations/00000000000000c1'];
    for (let step = 0; step < 60; step++) {
      const d = ds[Math.floor(r() * 3)]!;
      const key = keys[Math.floor(r() * keys.length)]!;
      const x = r();
      w.now += Math.floor(r() * 5000);
      if (x < 0.5) put(w, d, key, key === 'settings' ? { [`f${Math.floor(r() * 3)}`]: step, keep: seed } : { name: `n${step}`, created: 1 });
      else if (x < 0.6) {
        const op = kdelOp(d.view(), key);
        if (op) d.commit(op);
      } else if (x < 0.8) compact(d);
      else ds[Math.floor(r() * 3)]!.receive(d);
      // On every computer at every step: a head is never forgotten (a forget only names what a record it has replaced).
      for (const e of ds) for (const k of keys) for (const h of e.view().kv.heads(k)) expect(e.state.forgotten.has(h), `seed ${seed}`).toBe(false);
    }
    sync(...ds);
    const all = w.all();
    for (const k of keys) {
      const vals = ds.map((d) => JSON.stringify(valueOf(w, d, k) ?? null));
      expect(new Set(vals).size, `seed ${seed} ${k}`).toBe(1);
      const at = new KvView(all).mergeInputs(k);
      for (const v of [...(at?.heads ?? []), ...(at?.base ? [at.base] : [])]) {
        expect(all.forgotten.has(v.vid)).toBe(false);
        const writer = ds.find((d) => v.vid.startsWith(`${d.id}:`))!;
        expect(liveBlobs(writer.state).has(v.b.id), `seed ${seed} ${k} ${v.vid}`).toBe(true);
      }
    }
  }
});

it(`cost: 2,000 saves of one key with a checkpoint every 10 saves; forgetOp with ${KEYS.toLocaleString('en')} keys`, () => {
  const w = new World();
  const [a] = w.devices as [Device];
  const forgets: number[] = [];
  for (let i = 0; i < 2000; i++) {
    put(w, a, 'conversations/00000000000000c1', {
      v: 2,
      logs: { [a.id]: i },
      entries: i * 2,
      meta: { title: 't', updated: i },
    });
    if (i % 10 === 9) {
      const f = compact(a);
      if (f) forgets.push(JSON.stringify(f.op).length);
    }
  }
  const full = encodeState(a.state).length;
  const bare = encodeState({ ...a.state, forgotten: new Set() }).length;
  const noKv = encodeState({
    ...a.state,
    forgotten: new Set(),
    kv: new Map(),
  }).length;
  // KEYS keys of three values each (two replaced), then the steady state (all forgotten already).
  const big = emptyState();
  const b = w.devices[1]!;
  for (let k = 0; k < KEYS; k++) for (let j = 0; j < 3; j++) joinInto(big, stateOf(b.commit(kputOp(b.view(), `k/${k}`, w.texts.add('1').b))));
  const t0 = performance.now();
  const first = forgetOp(w.view(big));
  const t1 = performance.now();
  joinInto(big, stateOf(b.commit(first!)));
  const t2 = performance.now();
  const again = forgetOp(w.view(big));
  const t3 = performance.now();
  const sup0 = performance.now();
  new KvView(big).superseded();
  const sup1 = performance.now();
  const bigState = encodeState(big).length;
  const report = {
    checkpointStateBytes: full,
    ofWhichForgotten: full - bare,
    ofWhichKvValues: bare - noKv,
    forgetOps: forgets.length,
    forgetOpBytesMax: Math.max(...forgets),
    forgetOpBytesTotal: forgets.reduce((x, y) => x + y, 0),
    forgetOpManyKeysFirstMs: Math.round(t1 - t0),
    forgetOpManyKeysFirstVids: first!.vs.length,
    forgetOpManyKeysFirstBytes: JSON.stringify(first).length,
    forgetOpManyKeysSteadyMs: Math.round(t3 - t2),
    supersededManyKeysMs: Math.round(sup1 - sup0),
    steadyForgetIsEmpty: again === undefined,
    stateManyKeysBytes: bigState,
  };
  console.log('attack-forget cost', JSON.stringify(report));
  expect(again).toBeUndefined();
  expect(a.state.forgotten.size).toBe(1999);
  expect(first!.vs.length).toBe(2 * KEYS);
});
