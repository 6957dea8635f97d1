/**
 * The computers of a vault (devices.ts): their list, renaming one, and "Forget this computer", on real vaults on disk
 * carried between folders as a sync engine carries them.
 */
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { session, syncAll, vaultRoom, type Computer } from './carry-vaults';
import { FLOOR, PASS } from './two-computers';

const { room, computers, reopen, openAs } = vaultRoom('devices');
const devOf = async (c: Computer) => (await c.v.internal.device!(true))!;
/** What computer `c` has written of its own so far (its seqs): unchanged when a call wrote nothing. */
const written = async (c: Computer) => session(c.v).store.state.frontier.get(await devOf(c)) ?? 0;
const host = (os.hostname().trim() || 'computer').slice(0, 64);
/** Each computer writes once: a computer is listed once it wrote (the others then say their names as they see it). */
async function allWrite(cs: Computer[]): Promise<void> {
  for (const x of cs) await x.v.internal.putJSON(`sim/${await devOf(x)}`, { hello: 1 });
  await syncAll(cs);
}

it('lists every computer that wrote, each by the name it gave itself, this one marked, the latest writer first', async () => {
  const [a, b, c] = (await computers(3)) as [Computer, Computer, Computer];
  await allWrite([a, b, c]);
  // b writes last.
  await new Promise((r) => setTimeout(r, 5));
  await b.v.internal.putJSON('settings', { theme: 'dark' });
  await syncAll([a, b, c]);
  const list = await a.v.devices();
  expect(list.map((d) => d.id).sort()).toEqual([await devOf(a), await devOf(b), await devOf(c)].sort());
  expect(list[0]!.id).toBe(await devOf(b));
  expect(list.filter((d) => d.current).map((d) => d.id)).toEqual([await devOf(a)]);
  for (const d of list) {
    expect(d.name).toBe(host);
    expect(d.forgotten).toBe(false);
    expect(d.lastWrite).toBeGreaterThan(Date.now() - 60_000);
  }
  // Every computer lists the same computers (only `current` differs).
  const shape = async (x: Computer) => (await x.v.devices()).map(({ id, name, forgotten }) => ({ id, name, forgotten })).sort((p, q) => (p.id < q.id ? -1 : 1));
  expect(await shape(b)).toEqual(await shape(a));
  expect(await shape(c)).toEqual(await shape(a));
}, 30_000);

it('a computer renamed on one is named so on every computer; bad names and unknown ids are refused and write nothing', async () => {
  const [a, b, c] = (await computers(3)) as [Computer, Computer, Computer];
  await allWrite([a, b, c]);
  const idB = await devOf(b);
  await a.v.renameDevice(idB, '  Work\tlaptop\n ');
  await syncAll([a, b, c]);
  for (const x of [a, b, c]) expect((await x.v.devices()).find((d) => d.id === idB)?.name).toBe('Work laptop');
  const before = await written(a);
  for (const [id, name] of [
    [idB, '   '],
    [idB, 'x'.repeat(65)],
    ['0'.repeat(32), 'Desk'],
    ['L', 'Desk'],
    [idB, 'Work laptop'],
  ] as const) {
    const call = a.v.renameDevice(id, name);
    if (name === 'Work laptop') await call;
    else await expect(call).rejects.toMatchObject({ code: 'INVALID' });
  }
  expect(await written(a)).toBe(before);
  // 64 characters is the longest kept (characters, not UTF-16 units).
  await a.v.renameDevice(idB, '💻'.repeat(64));
  expect((await a.v.devices()).find((d) => d.id === idB)?.name).toBe('💻'.repeat(64));
}, 30_000);

it('"Forget this computer": listed as forgotten everywhere; not this computer; forgetting it again writes nothing', async () => {
  const [a, b, c] = (await computers(3)) as [Computer, Computer, Computer];
  await allWrite([a, b, c]);
  const idC = await devOf(c);
  await expect(a.v.forgetDevice(await devOf(a))).rejects.toMatchObject({ code: 'INVALID' });
  await expect(a.v.forgetDevice('f'.repeat(32))).rejects.toMatchObject({ code: 'INVALID' });
  await a.v.forgetDevice(idC);
  const once = await written(a);
  await a.v.forgetDevice(idC);
  expect(await written(a)).toBe(once);
  await syncAll([a, b]);
  for (const x of [a, b]) expect((await x.v.devices()).find((d) => d.id === idC)?.forgotten).toBe(true);
}, 30_000);

it('a forgotten computer that opens the vault again is known again, under the name it had', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a, b]);
  const idB = await devOf(b);
  await a.v.renameDevice(idB, 'Old laptop');
  await a.v.forgetDevice(idB);
  // b was offline meanwhile; it opens the vault again and only reads.
  const b2 = await reopen(b, 1);
  await syncAll([a, b2]);
  expect((await a.v.devices()).find((d) => d.id === idB)).toMatchObject({ forgotten: false, name: 'Old laptop' });
  expect((await b2.v.devices()).find((d) => d.id === idB)).toMatchObject({ forgotten: false, current: true });
}, 30_000);

it('a computer that has not seen the latest changes is marked behind until it has', async () => {
  const [a, b] = (await computers(2)) as [Computer, Computer];
  await allWrite([a, b]);
  const idB = await devOf(b);
  await a.v.internal.putJSON('settings', { theme: 'dark' });
  expect((await a.v.devices()).find((d) => d.id === idB)?.behind).toBe(true);
  await syncAll([a, b]);
  // b confirms what it read with its next write.
  await b.v.internal.putJSON('sim/b', { n: 1 });
  await syncAll([a, b]);
  expect((await a.v.devices()).find((d) => d.id === idB)?.behind).toBe(false);
}, 30_000);

it('a vault only this computer writes (format 1) lists no computers and refuses to rename or forget; a read-only open refuses too', async () => {
  const dir = path.join(room.root, 'one');
  const made = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: path.join(room.root, 'one-state'), format2: false });
  try {
    expect(await made.vault.devices()).toEqual([]);
    await expect(made.vault.renameDevice('0'.repeat(32), 'Desk')).rejects.toMatchObject({ code: 'INVALID' });
    await expect(made.vault.forgetDevice('0'.repeat(32))).rejects.toMatchObject({ code: 'INVALID' });
  } finally {
    await made.vault.close();
  }
  const [a] = (await computers(1)) as [Computer];
  await a.v.internal.putJSON('settings', { theme: 'dark' });
  const id = await devOf(a);
  await a.v.close();
  const ro = await openAs(0, { readOnly: true });
  await expect(ro.v.renameDevice(id, 'Desk')).rejects.toMatchObject({ code: 'INVALID', message: expect.stringContaining('read-only') });
  expect((await ro.v.devices()).map((d) => d.id)).toEqual([id]);
}, 30_000);
