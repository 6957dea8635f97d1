/**
 * Attacks on 57cc635 (docs/sync-design.md §12.4, "When a replaced value may be forgotten"): per-device `seen`, `superseded(me)`,
 * the forget the checkpoint writes. Pure worlds (sim.ts) here; real vaults on disk (announce2 at unlock, ingest and per call,
 * a full disk, a read-only open, the cost, three computers) in attack-announce-vaults.test.ts.
 */
import { expect, it } from 'vitest';
import { forgetOp } from '../../../electron/core/vault/sync/build';
import { decodeState, encodeState } from '../../../electron/core/vault/sync/canonical';
import { cloneState, joinInto } from '../../../electron/core/vault/sync/crdt';
import { SyncView } from '../../../electron/core/vault/sync/view';
import { announce, compact, put, sync, valueOf } from './forget-world';
import { World, type Device } from './sim';

const forgets = (d: Device) => [...d.state.forgotten];

// Found by the attack on 57cc635, fixed with "Forget this computer" (crdt.ts `isRetired`). It lost data: `retired` only
// ever grew, so once a computer was forgotten and came back, every later checkpoint of the others ignored it: a value it
// changed offline was forgotten meanwhile and its change merged without a base, reverting a field only it changed. A
// retire now holds only until the computer writes after seeing it.
it('a retired computer that comes back and keeps working: its offline change of one setting survives the other changing another and checkpointing', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  announce(b, a);
  a.commit({ t: 'retire', dev: b.id });
  // b comes back, sees the retire, and works normally for a while.
  sync(a, b);
  put(w, b, 'settings', { theme: 'light', fontSize: 13 });
  sync(a, b);
  // b offline: changes the theme only; a changes the font size only, later, and closes.
  put(w, b, 'settings', { theme: 'dark', fontSize: 13 });
  w.now += 60_000;
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  compact(a);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual(valueOf(w, b, 'settings'));
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

it('control: the retire is what loses it (the same story without the retire keeps both changes)', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  announce(b, a);
  sync(a, b);
  put(w, b, 'settings', { theme: 'light', fontSize: 13 });
  sync(a, b);
  put(w, b, 'settings', { theme: 'dark', fontSize: 13 });
  w.now += 60_000;
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  compact(a);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual(valueOf(w, b, 'settings'));
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

it('a computer known only through a third computer (its announcement reached b, b reached a): a waits for it before forgetting', () => {
  const w = new World();
  const [a, b, c] = w.devices as [Device, Device, Device];
  const first = put(w, a, 'settings', { theme: 'light', fontSize: 12, lang: 'en' });
  b.receive(a);
  c.receive(b);
  announce(c, b);
  // c offline from here (its theme change); a learns of c only through b's state.
  put(w, c, 'settings', { theme: 'dark', fontSize: 12, lang: 'en' });
  put(w, b, 'sim/b', 1);
  a.receive(b);
  expect(a.state.devices.has(c.id)).toBe(true);
  for (let i = 0; i < 5; i++) {
    w.now += 1000;
    put(w, a, 'settings', { theme: 'light', fontSize: 13 + i, lang: 'en' });
    b.receive(a);
    put(w, b, 'settings', { ...valueOf(w, b, 'settings'), lang: `l${i}` });
    a.receive(b);
    compact(a);
    compact(b);
  }
  expect(forgets(a)).not.toContain(`${a.id}:${first.seq}`);
  sync(a, b, c);
  const got = [a, b, c].map((d) => valueOf(w, d, 'settings'));
  expect(got[1]).toEqual(got[0]);
  expect(got[2]).toEqual(got[0]);
  expect(got[0]).toEqual({ theme: 'dark', fontSize: 17, lang: 'l4' });
});

it("checkpoints without 'seen' (older builds): decoding one does not crash, and a state joined from them forgets nothing a known computer has not seen", () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  const first = put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  announce(b, a);
  put(w, b, 'settings', { theme: 'dark', fontSize: 12 });
  put(w, a, 'settings', { theme: 'light', fontSize: 14 });
  const strip = (d: Device) => {
    const e = JSON.parse(encodeState(d.state)) as Record<string, unknown>;
    delete e.seen;
    return decodeState(JSON.stringify(e));
  };
  const old = strip(a);
  expect(old.seen.size).toBe(0);
  const f = forgetOp(new SyncView(old, w.texts.read), a.id);
  expect(f?.vs ?? []).not.toContain(`${a.id}:${first.seq}`);
  // Two old states joined and encoded again (now with an empty seen): no crash.
  const joined = joinInto(cloneState(old), strip(b));
  expect(() => decodeState(encodeState(joined))).not.toThrow();
  // Once b has seen a's value (it writes after receiving it), the forget is allowed, and only then.
  b.receive(a);
  put(w, b, 'sim/b', 2);
  a.receive(b);
  sync(a, b);
  expect(valueOf(w, a, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
  compact(a);
  sync(a, b);
  expect(valueOf(w, b, 'settings')).toEqual({ theme: 'dark', fontSize: 14 });
});

it('seen only rises: an old state of b (restored from a backup) joined in later does not lower what a knows of b', () => {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  put(w, a, 'settings', { theme: 'light', fontSize: 12 });
  b.receive(a);
  announce(b, a);
  const backup = cloneState(b.state);
  const second = put(w, a, 'settings', { theme: 'light', fontSize: 13 });
  b.receive(a);
  put(w, b, 'sim/b', 1);
  a.receive(b);
  expect(a.state.seen.get(b.id)?.get(a.id)).toBe(second.seq);
  // b's state goes back (its records stay in its folder: the real store reads them again), a joins the old one too.
  joinInto(a.state, backup);
  expect(a.state.seen.get(b.id)?.get(a.id)).toBe(second.seq);
});
