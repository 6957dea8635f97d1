/**
 * Attacks on the device list (devices.ts: `listDevices2`, `renameDevice2`, `forgetDevice2`; crdt.ts `isRetired`; kv.ts
 * `superseded`). Pure worlds (sim.ts) here; real vaults on disk in attack-devices-vaults.test.ts.
 */
import { expect, it } from 'vitest';
import { deviceNameOf, listDevices2 } from '../../../electron/core/vault/devices';
import { forgetOp, regOp } from '../../../electron/core/vault/sync/build';
import { decodeState, encodeState } from '../../../electron/core/vault/sync/canonical';
import { isRetired, joinInto } from '../../../electron/core/vault/sync/crdt';
import type { SyncSession } from '../../../electron/core/vault/sync/session2';
import { announce, compact, put, sync, twoKnown, valueOf } from './forget-world';
import { Device, World } from './sim';

/** `listDevices2` as device `d` sees it (the session only lends its state, id and view). */
const listOn = (d: Device) => listDevices2({ store: { state: d.state, device: d.id }, view: d.view() } as unknown as SyncSession);
/** What announce2 does at unlock / ingest: say the name again while unknown, unnamed or forgotten. */
const reannounce = (d: Device) => {
  const named = d.view().kv.register(`device-name:${d.id}`, 'newest') !== undefined;
  if (!named || isRetired(d.state, d.id)) d.commit(regOp(d.view(), `device-name:${d.id}`, 'x'));
};

// FINDING 1. A retire op whose writer is the computer it names (a build without forgetDevice2's check, a bug, a forged
// record: isOp2 accepts it) makes that computer forgotten for ever: `seen` never holds a device's own seq (noteSeen
// skips d === dev), so isRetired stays true whatever it writes, every other computer stops waiting for it before it
// forgets values (its offline changes then merge without a base), and announce2 writes its name again at every ingest.
it('a retire op naming its own writer: the writer, which has seen it and keeps writing, is not forgotten', () => {
  const { w, a, b } = twoKnown({ theme: 'light' }, false);
  b.commit({ t: 'retire', dev: b.id });
  sync(a, b);
  // b has seen its own retire and writes again (as announce2 would).
  reannounce(b);
  put(w, b, 'settings', { theme: 'dark' });
  sync(a, b);
  expect(isRetired(a.state, b.id)).toBe(false);
  expect(listOn(a).find((d) => d.id === b.id)?.forgotten).toBe(false);
});

// FINDING 2. A vid in `retired` that does not parse (a checkpoint written by a buggy or newer build: decodeState takes
// the sets as they are) counts as a retire no write can ever answer: isRetired returns true for ever. The safe reading
// of a vid one cannot place is "not retired" (waiting longer only keeps bytes; forgetting early loses a change).
it('a retire vid that does not parse (from a decoded checkpoint) does not forget a computer for ever', () => {
  const { w, a, b } = twoKnown({ theme: 'light' }, false);
  const e = JSON.parse(encodeState(a.state)) as { retired: Array<[string, string[]]> };
  e.retired = [[b.id, ['not-a-vid']]];
  joinInto(a.state, decodeState(JSON.stringify(e)));
  sync(a, b);
  reannounce(b);
  put(w, b, 'settings', { theme: 'dark' });
  sync(a, b);
  expect(isRetired(a.state, b.id)).toBe(false);
});

// FINDING 3. Names are only checked when written through renameDevice2 (deviceNameOf); listDevices2 returns the
// register as it is. Another computer (an older or hostile build, or a direct regOp) can give any computer a 10 KB
// name, or one with bidi overrides and line breaks, and every computer lists it so.
it('a name written by a direct regOp from another computer is listed as deviceNameOf would keep it', () => {
  const { a, b } = twoKnown({ theme: 'light' });
  a.commit(regOp(a.view(), `device-name:${b.id}`, 'x'.repeat(10_000)));
  a.commit(regOp(a.view(), `device-name:${a.id}`, 'Desk\u202E\n(this computer)'));
  sync(a, b);
  for (const d of listOn(b)) {
    expect([...d.name].length).toBeLessThanOrEqual(64);
    expect(d.name).not.toMatch(/[\n\u202a-\u202e\u2066-\u2069]/u);
  }
});

// FINDING 4. deviceNameOf keeps format characters: a name of only zero-width characters is not "empty" (the list then
// shows a blank name), and bidi overrides (U+202E) pass, so a name can read as another computer's reversed text.
it('deviceNameOf refuses a name that shows as nothing, and drops bidi controls', () => {
  for (const raw of ['\u200b', '\u200b\u200c\u200d\u2060', '\u200e\u200f', '\u202e']) expect(() => deviceNameOf(raw)).toThrow();
  expect(deviceNameOf('Desk\u202Epot')).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/u);
});

// FINDING 5 (the design's accepted cost, §4 "a retired device's late ops ... tend to come out as conflicts", but for
// internal values it is a silent revert, not a conflict): a computer forgotten while offline comes back with a change of
// one setting made offline; the other changed another field and checkpointed meanwhile. The base was forgotten, so the
// merge takes every field from the newest head: the returning computer's change is lost on every computer.
it('a computer forgotten while offline comes back: its offline change of one setting survives', () => {
  const { w, a, b } = twoKnown({ theme: 'light', fontSize: 12 });
  // b goes offline and changes only the theme.
  put(w, b, 'settings', { theme: 'dark', fontSize: 12 });
  // Months later, a forgets b, changes only the font size and closes.
  w.now += 90 * 86_400_000;
  a.commit({ t: 'retire', dev: b.id });
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  compact(a);
  // b comes back.
  sync(a, b);
  reannounce(b);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual(valueOf(w, b, 'settings'));
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

// Held: two computers forget each other at once; each comes back once it sees the other's retire.
it('held: two computers forget each other at once, both known again after one sync and their announcements', () => {
  const { a, b } = twoKnown({ theme: 'light' });
  a.commit({ t: 'retire', dev: b.id });
  b.commit({ t: 'retire', dev: a.id });
  sync(a, b);
  reannounce(a);
  reannounce(b);
  sync(a, b);
  for (const d of [a, b]) expect(listOn(d).map((x) => x.forgotten)).toEqual([false, false]);
});

// Held: the old plain-array `retired` of a checkpoint decodes to nothing retired (the safe side).
it('held: a checkpoint whose retired is a plain array of ids decodes as nothing retired', () => {
  const { a, b } = twoKnown({ theme: 'light' }, false);
  const e = JSON.parse(encodeState(a.state)) as { retired: unknown };
  e.retired = [b.id];
  expect(isRetired(decodeState(JSON.stringify(e)), b.id)).toBe(false);
});

// Scale: 30 computers, each forgotten while offline and each coming back: the list stays right on every computer, and
// forgetting waits for exactly the computers not forgotten.
it('held: 30 computers, every one forgotten and coming back in turn', () => {
  const w = new World();
  const ds = Array.from({ length: 30 }, (_, i) => new Device((i + 1).toString(16).padStart(32, 'a'), w));
  const [a] = ds as [Device];
  put(w, a, 'settings', { n: 0 });
  for (const d of ds.slice(1)) {
    d.receive(a);
    announce(d, a);
  }
  for (const d of ds) d.receive(a);
  // Everyone offline; a forgets all the others, writes, and can then forget the value it replaced.
  for (const d of ds.slice(1)) a.commit({ t: 'retire', dev: d.id });
  const n1 = put(w, a, 'settings', { n: 1 });
  put(w, a, 'settings', { n: 1.5 });
  expect(listOn(a).filter((x) => x.forgotten)).toHaveLength(29);
  // n:1, which no forgotten computer saw, may go at once.
  expect(forgetOp(a.view(), a.id)?.vs).toContain(`${a.id}:${n1.seq}`);
  compact(a);
  // Half come back.
  for (const d of ds.slice(1, 15)) {
    d.receive(a);
    reannounce(d);
    a.receive(d);
  }
  put(w, a, 'settings', { n: 2 });
  // The value n:1 must wait for the 14 that came back (they have not seen n:2).
  const superseded = a.view().kv.superseded(a.id);
  expect(superseded).toHaveLength(0);
  // The rest come back; everyone syncs: every computer lists 30 computers, none forgotten, all names the same.
  for (const d of ds.slice(15)) {
    d.receive(a);
    reannounce(d);
    a.receive(d);
  }
  for (const d of ds) d.receive(a);
  for (const d of ds) a.receive(d);
  for (const d of ds) d.receive(a);
  const shape = (d: Device) => listOn(d).map(({ id, name, forgotten }) => ({ id, name, forgotten })).sort((p, q) => (p.id < q.id ? -1 : 1));
  expect(shape(a)).toHaveLength(30);
  expect(shape(a).every((x) => !x.forgotten)).toBe(true);
  for (const d of ds) expect(shape(d)).toEqual(shape(a));
  // Everyone has seen n:2 now (their announcements depended on it? only those after it): each writes once more.
  for (const d of ds.slice(1)) {
    put(w, d, `sim/${d.id}`, 1);
    a.receive(d);
  }
  expect(a.view().kv.superseded(a.id).length).toBeGreaterThan(0);
});

// FINDING 5, second form: the window is not only "while it was offline". b comes back (it sees the retire, says its
// name again, "known again") and then changes a setting; a has not received b's files yet, changes another field and
// closes. b's change, made after it came back, is reverted too: retire stops the waiting for b until b's return
// reaches each computer, not until b was forgotten.
it('a computer that already came back, whose return has not reached the other yet, keeps its change of a setting', () => {
  const { w, a, b } = twoKnown({ theme: 'light', fontSize: 12 });
  a.commit({ t: 'retire', dev: b.id });
  // b gets a's files, comes back (announce2) and changes the theme.
  b.receive(a);
  reannounce(b);
  expect(isRetired(b.state, b.id)).toBe(false);
  put(w, b, 'settings', { theme: 'dark', fontSize: 12 });
  // b's files have not reached a yet: a changes the font size and closes.
  w.now += 60_000;
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  compact(a);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});
