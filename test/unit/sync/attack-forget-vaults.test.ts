/**
 * Attacks on the forgetting of internal values on real vaults on disk (docs/sync-design.md §12.4; the rules in pure
 * worlds are in attack-forget.test.ts): compaction removes files, a sync engine removes them on the other computers
 * too, and `internal.get` reads heads and base at most three times.
 */
import { expect, it } from 'vitest';
import { mirror, session, syncAll, vaultRoom } from './carry-vaults';

const { computers } = vaultRoom('attack-forget');

it('a computer offline for long writes settings on an old value the others replaced, forgot and compacted away: get works, all agree, verify passes', async () => {
  const cs = await computers(3);
  const [a, b, c] = cs as [(typeof cs)[0], (typeof cs)[0], (typeof cs)[0]];
  await a.v.internal.putJSON('settings', { theme: 'light', n: 0 });
  await syncAll(cs);
  expect(await c.v.internal.getJSON('settings')).toEqual({
    theme: 'light',
    n: 0,
  });
  // c is offline from here.
  await c.v.internal.putJSON('settings', { theme: 'dark', n: 0 });
  for (let i = 1; i <= 12; i++) {
    await (i % 2 ? a : b).v.internal.putJSON('settings', {
      theme: 'light',
      n: i,
    });
    await mirror(a, b);
    await mirror(b, a);
    await a.v.ingest();
    await b.v.ingest();
  }
  await session(a.v).checkpoint();
  await session(b.v).checkpoint();
  await mirror(a, b);
  await mirror(b, a);
  const first = (await a.v.internal.device!(false))!;
  // c said it was there when it unlocked, and has seen none of these: nothing it may still write over is forgotten.
  const forgotten = (x: (typeof cs)[0]) => [...session(x.v).store.state.forgotten].filter((v) => v.startsWith(`${first}:`));
  expect(forgotten(a)).toEqual([]);
  await syncAll(cs);
  const got = await Promise.all(cs.map((x) => x.v.internal.getJSON('settings')));
  expect(got[1]).toEqual(got[0]);
  expect(got[2]).toEqual(got[0]);
  // Merged against the value c changed: c's theme and the others' count.
  expect(got[0]).toEqual({ theme: 'dark', n: 12 });
  for (const x of cs) expect(await x.v.verify()).toMatchObject({ ok: true });
  // A save on the offline computer settles it everywhere; once the others have seen it (each writes again), a checkpoint
  // forgets what it replaced.
  await c.v.internal.putJSON('settings', got[2]);
  await syncAll(cs);
  await b.v.internal.putJSON('sim/b', new TextEncoder().encode('seen'));
  await syncAll(cs);
  await session(a.v).checkpoint();
  await syncAll(cs);
  expect(forgotten(a).length).toBeGreaterThan(0);
  for (const x of cs) expect(await x.v.internal.getJSON('settings')).toEqual(got[0]);
  for (const x of cs) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

it("the read cap: when another computer's value of the key arrives during every read, get gives up with DAMAGED after six reads; with one arrival it reads the merge", async () => {
  const cs = await computers(3);
  const [a, b, c] = cs as [(typeof cs)[0], (typeof cs)[0], (typeof cs)[0]];
  await a.v.internal.putJSON('settings', { x: 0, y: 0 });
  await syncAll(cs);
  await c.v.internal.putJSON('settings', { x: 1, y: 0 });
  await b.v.internal.putJSON('settings', { x: 0, y: 1 });
  await mirror(b, c);
  await c.v.ingest();
  expect(session(c.v).view.kv.heads('settings').length).toBe(2);
  const blobs = session(c.v).store.blobs;
  const original = blobs.read.bind(blobs);
  let arrivals = 0;
  let budget = 0;
  blobs.read = async (...args: Parameters<typeof blobs.read>) => {
    if (budget > 0) {
      // b, which has not seen c's value, writes again; it arrives while c reads (an ingest finishing meanwhile).
      budget--;
      arrivals++;
      await b.v.internal.putJSON('settings', { x: 0, y: 1 + arrivals });
      await mirror(b, c);
      await session(c.v).store.ingest();
    }
    return original(...args);
  };
  budget = 1;
  expect(await c.v.internal.getJSON('settings')).toEqual({ x: 1, y: 2 });
  budget = 100;
  arrivals = 0;
  const err = await c.v.internal.getJSON('settings').catch((e: unknown) => e);
  expect((err as { code?: string }).code).toBe('DAMAGED');
  // Three reads, a catch-up, three reads again; each read of a merge reads two heads and the base.
  expect(arrivals).toBeGreaterThanOrEqual(6);
  blobs.read = original;
  // Nothing was written: once the arrivals stop, it reads (c's x: 1 is lost by then: b checkpointed, see below).
  expect(await c.v.internal.getJSON('settings')).toMatchObject({
    y: 1 + arrivals,
  });
}, 30_000);

// Was a bug (the data loss of attack-forget.test.ts's first case, on real vaults): b's routine checkpoints (every 4
// records here, at every close in the app) forgot the value c's unsynced write replaced; when c's write arrived, c's
// change was reverted everywhere. c is known to b now: it said it was there when it first saw b's files (announce2).
it(
  'real vaults: a setting changed on one computer survives the other computer writing another field and checkpointing',
  async () => {
    const cs = await computers(2);
    const [b, c] = cs as [(typeof cs)[0], (typeof cs)[0]];
    await b.v.internal.putJSON('settings', { x: 0, y: 0 });
    await syncAll(cs);
    await c.v.internal.putJSON('settings', { x: 1, y: 0 });
    for (let i = 1; i <= 5; i++) await b.v.internal.putJSON('settings', { x: 0, y: i });
    await session(b.v).checkpoint();
    await syncAll(cs);
    const got = await Promise.all(cs.map((x) => x.v.internal.getJSON('settings')));
    expect(got[0]).toEqual(got[1]);
    expect(got[1]).toEqual({ x: 1, y: 5 });
  },
  30_000,
);
