/**
 * Attacks on the device list on real vaults on disk (devices.ts, vault2.ts `announce2`, crdt.ts `isRetired`): renames
 * racing the automatic announcement, a forged self-retire, a full disk during "Forget this computer", a memory file
 * changed offline by a computer forgotten meanwhile. Pure cases in attack-devices.test.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { fullDisk } from '../vault/helpers';
import { mirror, session, syncAll, vaultRoom, type Computer } from './carry-vaults';

const { computers, reopen, openAs } = vaultRoom('attack-devices');
const devOf = async (c: Computer) => (await c.v.internal.device!(true))!;
const written = async (c: Computer) => session(c.v).store.state.frontier.get(await devOf(c)) ?? 0;
const nameOn = async (c: Computer, id: string) => (await c.v.devices()).find((d) => d.id === id)?.name;
const tick = () => new Promise((r) => setTimeout(r, 5));
async function allWrite(cs: Computer[]): Promise<void> {
  for (const x of cs) await x.v.internal.putJSON(`sim/${await devOf(x)}`, { hello: 1 });
  await syncAll(cs);
}

// FINDING 6. announce2 says a forgotten computer's name again when it comes back (to write something that depends on
// the retire): it writes the register `device-name:<dev>` with the name as it read it. A rename the user made on
// another computer after the forget, which the returning computer had not received yet, is concurrent with it and older
// by the clock: the register's newest head is the old name, on every computer. The user's rename is silently undone.
it('a rename made after "Forget this computer" survives the forgotten computer coming back', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a, b]);
  const idB = await devOf(b);
  await a.v.forgetDevice(idB);
  // The retire reaches b's folder; b does not look yet.
  await mirror(a, b);
  await tick();
  await a.v.renameDevice(idB, 'Work laptop');
  await tick();
  // b reads the retire (not the rename) and says its name again.
  await b.v.ingest();
  await syncAll([a, b]);
  expect(await nameOn(a, idB)).toBe('Work laptop');
  expect(await nameOn(b, idB)).toBe('Work laptop');
}, 30_000);

// FINDING 7 (same cause, no forget needed): the first computer writes before it sees any other, so it has no name;
// another computer lists it with an empty name and the user names it. The first computer, not having received the
// rename yet, sees the other and announces its host name, newer by the clock: the user's name is lost everywhere.
it("a name given to the first computer before it announced itself survives its announcement", async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.internal.putJSON('settings', { theme: 'light' });
  const idA = await devOf(a);
  await mirror(a, b);
  await b.v.ingest();
  expect(await nameOn(b, idA)).toBe('');
  // b's announcement reaches a's folder before the rename is made.
  await mirror(b, a);
  await tick();
  await b.v.renameDevice(idA, 'Desk');
  await tick();
  await a.v.ingest();
  await syncAll([a, b]);
  expect(await nameOn(a, idA)).toBe('Desk');
  expect(await nameOn(b, idA)).toBe('Desk');
}, 30_000);

// FINDING 1 on disk: a retire naming its own writer keeps that computer forgotten for ever, and announce2 then writes
// its name again at every ingest (a record and an ack each time, for ever).
it('a retire op naming its own writer does not make the writer write at every ingest', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a, b]);
  const idB = await devOf(b);
  await session(b.v).commit({ t: 'retire', dev: idB });
  await syncAll([a, b]);
  const before = await written(b);
  for (let i = 0; i < 5; i++) await b.v.ingest();
  expect(await written(b)).toBe(before);
  expect((await a.v.devices()).find((d) => d.id === idB)?.forgotten).toBe(false);
}, 30_000);

// Held: a full disk during "Forget this computer", at every size between nothing and the whole record and its ack:
// once there is room, both computers agree whether it is forgotten and verify clean.
for (const room of [0, 30, 80, 150, 250, 400, 700]) {
  it(`held: a full disk during "Forget this computer" (${room} bytes left): both computers agree once there is room`, async () => {
    const [a0, b] = (await computers(2)) as [Computer, Computer];
    await allWrite([a0, b]);
    const idB = await devOf(b);
    await a0.v.close();
    const disk = fullDisk();
    const a = await openAs(0, { fs: disk.fs });
    disk.room.bytes = room;
    await a.v.forgetDevice(idB).catch(() => undefined);
    disk.room.bytes = Infinity;
    await syncAll([a, b]);
    await syncAll([a, b]);
    const there = (await b.v.devices()).find((d) => d.id === idB)!.forgotten;
    const here = (await a.v.devices()).find((d) => d.id === idB)!.forgotten;
    expect(here).toBe(there);
    for (const x of [a, b]) expect(await x.v.verify()).toMatchObject({ ok: true });
  }, 30_000);
}

// FINDING 8 (general to per-call acks, shown on "Forget this computer"): the retire record is written and applied, the
// ack after it finds the disk full, and the call fails with "the change was not saved ... try again", while the list
// already shows the computer forgotten (and a retry writes nothing, as it is). The change is in fact kept, and goes out
// with the next ingest's ack. A change must be all or nothing as the user is told.
for (const perCall of [false, true])
it(`a "Forget this computer" that fails on a full disk leaves the computer not forgotten (or does not fail)${perCall ? ' (per call: CLI, MCP)' : ' (ack at once)'}`, async () => {
  const [a0, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a0, b]);
  const idB = await devOf(b);
  await a0.v.close();
  const disk = fullDisk();
  const a = await openAs(0, { fs: disk.fs, ...(perCall ? { lockPerCall: true, ackDelayMs: 50 } : {}) });
  // Room for the retire record, not for its ack (seen: 400 to 600 bytes do this).
  disk.room.bytes = 400;
  const failed = await a.v.forgetDevice(idB).then(
    () => false,
    () => true,
  );
  disk.room.bytes = Infinity;
  const forgotten = (await a.v.devices()).find((d) => d.id === idB)!.forgotten;
  expect({ failed, forgotten }).not.toEqual({ failed: true, forgotten: true });
}, 30_000);

// Held: a forgotten computer's offline change of a memory file is kept (a conflict at worst), every computer converges,
// verify passes.
it('held: a memory file changed offline by a computer forgotten meanwhile is not lost, and both computers agree', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.memory.writeFile('/memories/notes.md', 'one\ntwo\nthree\nfour\nfive\n', { mode: 'create', source: 'user' });
  await allWrite([a, b]);
  const idB = await devOf(b);
  await b.v.memory.writeFile('/memories/notes.md', 'one (b)\ntwo\nthree\nfour\nfive\n', { mode: 'update', source: 'user' });
  await a.v.forgetDevice(idB);
  await a.v.memory.writeFile('/memories/notes.md', 'one\ntwo\nthree\nfour\nfive (a)\n', { mode: 'update', source: 'user' });
  const a2 = await reopen(a, 0);
  const b2 = await reopen(b, 1);
  await syncAll([a2, b2]);
  const textA = await a2.v.memory.readFile('/memories/notes.md');
  const textB = await b2.v.memory.readFile('/memories/notes.md');
  expect(textA).toEqual(textB);
  expect(JSON.stringify(textA)).toContain('one (b)');
  expect(JSON.stringify(textA)).toContain('five (a)');
  for (const x of [a2, b2]) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// Held: one computer renamed on two others at once: the same name everywhere.
it('held: a computer renamed on two computers at once has one name everywhere', async () => {
  const [a, b, c] = (await computers(3)) as [Computer, Computer, Computer];
  await allWrite([a, b, c]);
  const idC = await devOf(c);
  await a.v.renameDevice(idC, 'From A');
  await b.v.renameDevice(idC, 'From B');
  await syncAll([a, b, c]);
  const names = await Promise.all([a, b, c].map((x) => nameOn(x, idC)));
  expect(new Set(names).size).toBe(1);
  expect(['From A', 'From B']).toContain(names[0]);
}, 30_000);

// FINDING 5 on disk (see attack-devices.test.ts): a computer forgotten while it was offline comes back with a change of
// one setting; the other computer changed another setting after the forget and closed (its checkpoint forgot the value
// both started from, since the forgotten computer no longer counts). The offline change is reverted on every computer.
/**
 * B changes the theme offline after A's value reached it (`seen`: and wrote once more after, which A received); A
 * forgets B (unless not `forget`), changes the font size, closes (its checkpoint may forget the value both started
 * from); both meet again.
 */
async function forgottenOffline(seen: boolean, forget = true): Promise<Computer[]> {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await a.v.internal.putJSON('settings', { theme: 'light', fontSize: 12 });
  await allWrite([a, b]);
  if (seen) await allWrite([a, b]);
  const idB = await devOf(b);
  await b.v.internal.putJSON('settings', { theme: 'dark', fontSize: 12 });
  if (forget) await a.v.forgetDevice(idB);
  await tick();
  await a.v.internal.putJSON('settings', { theme: 'light', fontSize: 14 });
  const a2 = await reopen(a, 0);
  await syncAll([a2, b]);
  await syncAll([a2, b]);
  return [a2, b];
}

it('a computer forgotten while offline keeps the setting it changed offline when it comes back', async () => {
  const [a2, b] = (await forgottenOffline(true)) as [Computer, Computer];
  expect(await a2.v.internal.getJSON('settings')).toEqual(await b.v.internal.getJSON('settings'));
  for (const x of [a2, b]) expect(await x.v.verify()).toMatchObject({ ok: true });
  expect(await a2.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 14 });
}, 30_000);

// Control for the above: the same story without the forget keeps both changes.
it('held (control): the same story without "Forget this computer" keeps both settings', async () => {
  for (const x of await forgottenOffline(false, false)) expect(await x.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 14 });
}, 30_000);

// FINDING (a setting change lost, moderate; open): the same as above, but B wrote nothing A received between seeing
// A's value and changing it offline. A cannot know that B saw the value, so "Forget this computer" lets A's checkpoint
// forget it (a forgotten computer holds back only the values it is known to have seen, kv.ts `lastSeen`), and B's
// change, merged against a base that is gone, loses to A's. Found when new vaults started to be made in format 2 at
// once (the test above then depended on the order of its first writes). Forget only a computer that is gone for good.
it.fails('a computer forgotten while offline, which changed a setting right after seeing it, keeps that change', async () => {
  const [a2] = (await forgottenOffline(false)) as [Computer, Computer];
  expect(await a2.v.internal.getJSON('settings')).toEqual({ theme: 'dark', fontSize: 14 });
}, 30_000);

// Held: a retire reaching a computer before the records of the computer it names waits for them (its record's dep),
// and then lists that computer as forgotten, the same as everywhere.
it('held: a retire that arrives before the records of the computer it names waits for them', async () => {
  const [a, b, c] = (await computers(3)) as [Computer, Computer, Computer];
  await a.v.internal.putJSON('settings', { theme: 'light' });
  await syncAll([a, c]);
  await b.v.internal.putJSON(`sim/b`, { hello: 1 });
  await mirror(b, a);
  await a.v.ingest();
  const idB = await devOf(b);
  await a.v.forgetDevice(idB);
  await mirror(a, c);
  // c gets a's records, not b's.
  await fs.rm(path.join(c.dir, 'devices', idB), { recursive: true, force: true });
  const waiting = await c.v.ingest();
  expect((await c.v.devices()).map((d) => d.id)).not.toContain(idB);
  expect(waiting.join('\n')).toContain('first');
  await mirror(b, c);
  await c.v.ingest();
  expect((await c.v.devices()).find((d) => d.id === idB)?.forgotten).toBe(true);
  expect(await c.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// Held: two computers forget each other at once; after a sync both are known again on both (each said its name again
// on seeing the other's retire), and forgetting waits for both again.
it('held: two computers forget each other at once: both known again on both after a sync', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a, b]);
  await a.v.forgetDevice(await devOf(b));
  await b.v.forgetDevice(await devOf(a));
  await syncAll([a, b]);
  await syncAll([a, b]);
  for (const x of [a, b]) expect((await x.v.devices()).map((d) => d.forgotten)).toEqual([false, false]);
  for (const x of [a, b]) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// Held: two processes of one computer (per call, one state folder): the one that has not written yet still lists the
// computer the other made as this computer, and refuses to forget it (it becomes that device at its next call).
it('held: a second process of this computer that has not written yet lists this computer as current and will not forget it', async () => {
  // Made by a format-1 build: no computer is known, so B says nothing at its unlock and has not written.
  const [a, b1] = (await computers(2, { v1: true })) as [Computer, Computer];
  await b1.v.close();
  const p1 = await openAs(1, { lockPerCall: true });
  const p2 = await openAs(1, { lockPerCall: true });
  expect(session(p1.v).store.device).toBeUndefined();
  await a.v.internal.putJSON('settings', { theme: 'light' });
  await mirror(a, b1);
  await p2.v.internal.putJSON('settings', { theme: 'dark' });
  const me = await devOf(p2);
  expect((await p1.v.devices()).find((d) => d.id === me)?.current).toBe(true);
  await expect(p1.v.forgetDevice(me)).rejects.toMatchObject({ code: 'INVALID' });
}, 30_000);
