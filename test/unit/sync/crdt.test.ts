/**
 * The replicated state is a join-semilattice (docs/sync-design.md §2.4, §9.1):
 * for random ops on three devices, what the view shows depends only on the
 * set of ops seen — not on their order, on duplicates, or on how they were
 * grouped into checkpoints — and nothing a device acknowledged is lost.
 */
import { describe, expect, it } from 'vitest';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { decodeState, encodeState } from '../../../electron/core/vault/sync/canonical';
import { cloneState, join, joinInto, emptyState, maxStamp, opState, type SyncState } from '../../../electron/core/vault/sync/crdt';
import { compareStamped } from '../../../electron/core/vault/sync/hlc';
import { formatVid } from '../../../electron/core/vault/sync/ids';
import { randomRun } from './gen';
import { dumpView, stateOf, World, type Rec } from './sim';

type Rng = () => number;
const shuffle = <T>(rng: Rng, items: readonly T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};
const joinRecs = (recs: readonly Rec[]): SyncState => {
  const s = emptyState();
  for (const r of recs) joinInto(s, stateOf(r));
  return s;
};
/** Random slices of `recs` (they may overlap), each joined and sent through a checkpoint's encoding. */
function checkpoints(rng: Rng, recs: readonly Rec[]): SyncState[] {
  const out: SyncState[] = [];
  let at = 0;
  while (at < recs.length) {
    const n = 1 + Math.floor(rng() * Math.max(1, recs.length / 3));
    const from = Math.max(0, at - Math.floor(rng() * 3));
    out.push(decodeState(encodeState(joinRecs(recs.slice(from, at + n)))));
    at += n;
  }
  return out;
}

// Under `npm test`: a few runs, half from fixed seeds and half from the run's random seed; MNEMO_DEEP: many, and longer.
const SEEDS = DEEP ? 100 : 6;
const STEPS = DEEP ? 240 : 90;
const random = randomSeed('sync crdt');
const seeds = [...Array.from({ length: Math.ceil(SEEDS / 2) }, (_, i) => FIXED_SEED + i), ...Array.from({ length: Math.floor(SEEDS / 2) }, (_, i) => random + i)];

/** One seed's run: three devices (two with clocks six hours off) working and syncing at random. */
function run(seed: number): { rng: Rng; w: World } {
  const rng = prng(seed);
  const w = new World([0, 6 * 3600_000, -6 * 3600_000]);
  randomRun(rng, w, STEPS);
  return { rng, w };
}

describe.each(seeds)('seed %i (replay a random one with MNEMO_SEED)', (seed) => {
  it('the view of any order, duplication or checkpoint grouping of the same ops is identical', () => {
    const { rng, w } = run(seed);
    const all = w.all();
    const dump = (s: SyncState) => dumpView(w.view(s), w.texts.readKv);
    const expected = dump(all);
    expect(dump(joinRecs(shuffle(rng, w.records)))).toBe(expected);
    expect(dump(joinRecs(shuffle(rng, [...w.records, ...w.records.filter(() => rng() < 0.3)])))).toBe(expected);
    expect(dump(join(...shuffle(rng, checkpoints(rng, w.records))))).toBe(expected);
    // Every op is in the state of the device that made it: the devices' states together are exactly the ops.
    expect(encodeState(join(...shuffle(rng, w.devices.map((d) => d.state))))).toBe(encodeState(all));
  });

  it('join is commutative, associative and idempotent', () => {
    const { rng, w } = run(seed);
    const part = () => joinRecs(w.records.filter(() => rng() < 0.5));
    const [a, b, c] = [part(), part(), part()];
    const enc = encodeState;
    expect(enc(join(a, b))).toBe(enc(join(b, a)));
    expect(enc(join(join(a, b), c))).toBe(enc(join(a, join(b, c))));
    expect(enc(join(a, a))).toBe(enc(a));
    expect(enc(join(a, emptyState()))).toBe(enc(a));
    // joinInto changes only its target; a clone is equal and independent; a checkpoint's encoding round-trips.
    const before = enc(a);
    joinInto(cloneState(a), b);
    expect(enc(a)).toBe(before);
    expect(enc(decodeState(enc(a)))).toBe(before);
  });

  it('every acknowledged write is current or in history, unless forgotten, purged or older than the history window', () => {
    const { w } = run(seed);
    const v = w.view(w.all());
    const shown = new Set<string>();
    for (const g of v.tree.groups.values()) for (const e of v.versions(g.path)) if (e.vid) shown.add(e.vid);
    const puts = w.records.flatMap((r) => (r.op.t === 'put' ? [formatVid(r.dev, r.seq)] : r.op.t === 'batch' ? r.op.ops.map((_, i) => formatVid(r.dev, r.seq + i)) : []));
    expect(puts.length).toBeGreaterThan(0);
    for (const vid of puts) {
      if (shown.has(vid) || v.graph.gone.has(vid)) continue;
      // Not shown: then it is history older than the window of the file it belongs to.
      const at = v.graph.all.get(vid)!;
      const group = [...v.tree.groups.values()].find((g) => v.graph.closure(g.members.flatMap((m) => m.heads)).has(vid));
      expect(group, `${vid} belongs to no file`).toBeDefined();
      const newer = v.versions(group!.path).filter((e) => e.vid && !e.current && compareStamped({ h: v.graph.all.get(e.vid)!.rec.h, vid: e.vid }, { h: at.rec.h, vid }) > 0);
      expect(newer.length, `${vid} hidden inside the window`).toBeGreaterThanOrEqual(v.depth());
    }
    // What a version replaced is never current again, whatever the clocks said (two devices here are six hours off).
    for (const g of v.tree.groups.values()) {
      const r = g.live ? v.resolve(g.path)! : undefined;
      if (r?.kind === 'single' || r?.kind === 'conflict') expect(v.graph.named.has(r.kind === 'single' ? r.vid : r.winner)).toBe(false);
    }
  });
});

it('an op becomes a one-op state under its vid; a batch takes one seq per op; ack, blob and reloc change nothing', () => {
  const dev = '1'.repeat(32);
  const b = { id: '0'.repeat(32), len: 1, h: '0'.repeat(64) };
  const put = (p: string) => ({ t: 'put' as const, f: '', p, par: [], b, s: 1, k: 'k' });
  const s = opState({ dev, seq: 7, h: [5, 0], at: 5 }, { t: 'batch', ops: [{ ...put('/memories/a.md'), f: `${dev}:7` }, { ...put('/memories/b.md'), f: `${dev}:8` }, { t: 'mkdir', p: '/memories/c' }] });
  expect([...s.files.keys()]).toEqual([`${dev}:7`, `${dev}:8`]);
  expect([...s.dirs.get('/memories/c')!.adds.keys()]).toEqual([`${dev}:9`]);
  expect(s.frontier.get(dev)).toBe(9);
  expect(maxStamp(s)).toEqual([5, 0]);
  for (const op of [{ t: 'ack' as const }, { t: 'blob' as const, b }, { t: 'reloc' as const, b }]) expect(encodeState(opState({ dev, seq: 1, h: [1, 0], at: 1 }, op))).toBe(encodeState(emptyState()));
});
