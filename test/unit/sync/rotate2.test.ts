/**
 * Key rotation and a new recovery key across computers (docs/sync-design.md §7, §12.10; sync/rotate2.ts): a new
 * epoch every computer follows with the same passphrase, the old epoch read through the keys file until each
 * computer has closed it, nothing written on either side lost.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';
import { Vault } from '../../../electron/core/vault/vault';
import { session, syncAll, vaultRoom, type Computer } from './carry-vaults';
import { carryHeader, epochFolders, epochOf } from './rot-world';
import { PASS } from './two-computers';

const { room, computers } = vaultRoom('rotate2');

const write = (c: Computer, name: string, text = name) => c.v.memory.writeFile(`/memories/${name}.md`, text, { mode: 'upsert', source: 'user' });
const read = (c: Computer, name: string) => c.v.memory.readFile(`/memories/${name}.md`);

async function reopen(c: Computer, i: number): Promise<Computer> {
  await c.v.close();
  const v = await Vault.open(c.dir, { stateDir: path.join(room.root, `s${i}`), format2: true, ackDelayMs: 0, journalLimit: 4 });
  await v.unlock(PASS);
  return { dir: c.dir, v };
}

it('a key rotation on A reaches B: B unlocks with the same passphrase, keeps what it wrote meanwhile under the old keys, and the old epoch goes once both wrote in the new one', async () => {
  const [a, b] = await computers(2);
  await write(a!, 'a1');
  await write(b!, 'b1');
  await syncAll([a!, b!]);
  const e1 = await epochOf(a!.dir);
  // B writes on, offline, under the old keys.
  await write(b!, 'b2');
  await write(b!, 'shared', 'from B');
  const recovery = await a!.v.rotateKeys(PASS);
  expect(recovery).not.toBe(room.recovery);
  const e2 = await epochOf(a!.dir);
  expect(e2).not.toBe(e1);
  await write(a!, 'a2');
  expect(await read(a!, 'a1')).toBe('a1');
  // A still has its old folder: B has not written in the new epoch yet (and may still read only the old one).
  expect(await epochFolders(a!.dir)).toEqual(new Set([e1.slice(0, 8), e2.slice(0, 8)]));

  // B gets A's files and the new header: its session ends, and the same passphrase opens the new keys.
  await syncAll([a!, b!]).catch(() => undefined);
  await carryHeader(a!.dir, b!.dir);
  await expect(b!.v.ingest()).rejects.toMatchObject({ code: 'LOCKED' });
  expect(b!.v.isUnlocked()).toBe(false);
  await b!.v.unlock(PASS);
  for (const n of ['a1', 'a2', 'b1', 'b2']) expect(await read(b!, n)).toBe(n);
  expect(await read(b!, 'shared')).toBe('from B');
  await write(b!, 'b3');
  // B wrote its keys file and checkpoint in the new epoch, and A had: B's old folder is gone.
  const bDev = (await b!.v.internal.device!(false))!;
  expect(await fs.readdir(path.join(b!.dir, 'devices', bDev, e1.slice(0, 8))).catch(() => [])).toEqual([]);

  // (B first: its removal reaches A before A's copy of those files could come back.)
  await syncAll([b!, a!]);
  for (const n of ['b2', 'b3']) expect(await read(a!, n)).toBe(n);
  expect(await read(a!, 'shared')).toBe('from B');
  // A's next unlock sees B in the new epoch: its old folder goes too, and nothing of the old epoch is left.
  const a2 = await reopen(a!, 0);
  await syncAll([a2, b!]);
  expect(await epochFolders(a2.dir)).toEqual(new Set([e2.slice(0, 8)]));
  for (const c of [a2, b!]) {
    for (const n of ['a1', 'a2', 'b1', 'b2', 'b3']) expect(await read(c, n)).toBe(n);
    expect(await c.v.verify()).toMatchObject({ ok: true });
  }
  expect(session(a2.v).store.older.length).toBeGreaterThan(0);
  await a2.v.close();
  // The old recovery key opens nothing now; the new one does.
  const v = await Vault.open(a!.dir, { stateDir: path.join(room.root, 's0'), format2: true, ackDelayMs: 0 });
  await expect(v.unlockWithRecoveryKey(room.recovery)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  await v.unlockWithRecoveryKey(recovery);
  expect(await read({ dir: a!.dir, v }, 'b3')).toBe('b3');
  await v.close();
});

it('two rotations made at once on two computers: both unlock with the passphrase under the best header, and what each wrote under its own new keys is kept', async () => {
  const [a, b] = await computers(2);
  await write(a!, 'a1');
  await write(b!, 'b1');
  await syncAll([a!, b!]);
  // Each rotates while the other's files are not there yet, and writes on under its new keys.
  const ra = await a!.v.rotateKeys(PASS);
  const rb = await b!.v.rotateKeys(PASS);
  await write(a!, 'a2');
  await write(b!, 'b2', 'b2 under its keys');
  const [ea, eb] = [await epochOf(a!.dir), await epochOf(b!.dir)];
  expect(ea).not.toBe(eb);
  // The sync engine keeps each computer's vault.json and brings the other's as a conflict copy.
  await syncAll([a!, b!]);
  await fs.copyFile(path.join(a!.dir, 'vault.json'), path.join(b!.dir, 'vault.sync-conflict-20261127-120000-AAAAAAA.json'));
  await fs.copyFile(path.join(b!.dir, 'vault.json'), path.join(a!.dir, 'vault.sync-conflict-20261127-120001-BBBBBBB.json'));
  // The computer whose header ranks lower locks at its next read (the other goes on, and reads the rival's epoch at its next unlock).
  const results = await Promise.all([a!.v.ingest().then(() => 'on', (e: { code?: string }) => e.code), b!.v.ingest().then(() => 'on', (e: { code?: string }) => e.code)]);
  expect(results.filter((r) => r === 'LOCKED')).toHaveLength(1);
  const [a2, b2] = [await reopen(a!, 0), await reopen(b!, 1)];
  await syncAll([a2, b2]);
  for (const c of [a2, b2]) {
    for (const n of ['a1', 'a2', 'b1']) expect(await read(c, n)).toBe(n);
    expect(await read(c, 'b2')).toBe('b2 under its keys');
  }
  // The rival header went once each computer's keys file held its key: an unlock derives one key again.
  for (const c of [a2, b2]) expect((await fs.readdir(c.dir)).filter((n) => n.endsWith('.json'))).toEqual(['vault.json']);
  // Both go on under one epoch; writes after it reach the other.
  expect(await epochOf(a2.dir)).toBe(await epochOf(b2.dir));
  await write(a2, 'a3');
  await write(b2, 'b3');
  await syncAll([a2, b2]);
  for (const c of [a2, b2]) {
    for (const n of ['a3', 'b3']) expect(await read(c, n)).toBe(n);
    expect(await c.v.verify()).toMatchObject({ ok: true });
    expect(c.v.notices().noticeKeys?.some((k) => k.key === 'errors:notice.keysCrossed')).toBe(true);
  }
  // The winner's recovery key opens the vault; the other one made at the same time does not.
  const winner = (await epochOf(a2.dir)) === ea ? ra : rb;
  const loser = winner === ra ? rb : ra;
  await a2.v.close();
  const v = await Vault.open(a2.dir, { stateDir: path.join(room.root, 's0'), format2: true, ackDelayMs: 0 });
  await expect(v.unlockWithRecoveryKey(loser)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  await v.unlockWithRecoveryKey(winner);
  expect(await read({ dir: a2.dir, v }, 'b2')).toBe('b2 under its keys');
  await v.close();
});

it('a rotation cut short before vault.json named its keys leaves nothing behind: its folder goes at the next open', async () => {
  const [a] = await computers(1);
  await write(a!, 'a1');
  const me = (await a!.v.internal.device!(false))!;
  const epoch = 'deadbeef'.padEnd(32, '0');
  const left = path.join(a!.dir, 'devices', me, epoch.slice(0, 8));
  await fs.mkdir(left, { recursive: true });
  await fs.writeFile(path.join(left, 'c-000000000003-00000000'), 'a checkpoint of the epoch never named');
  await fs.writeFile(path.join(left, 'someone-else.txt'), 'not ours');
  await fs.writeFile(path.join(room.root, 's0', `${a!.v.vaultId}.rotating`), JSON.stringify({ epoch }));
  const again = await reopen(a!, 0);
  expect(await fs.readdir(left)).toEqual(['someone-else.txt']);
  await expect(fs.access(path.join(room.root, 's0', `${a!.v.vaultId}.rotating`))).rejects.toThrow();
  expect(await read(again, 'a1')).toBe('a1');
  expect(await again.v.verify()).toMatchObject({ ok: true });
  await again.v.close();
});

it('keys rotated here while the passphrase was changed on another computer (its header wins): the old passphrase opens the vault once through the rotation, and what was written under its keys is kept', async () => {
  const [a, b] = await computers(2);
  await write(a!, 'a1');
  await write(b!, 'b1');
  await syncAll([a!, b!]);
  await a!.v.rotateKeys(PASS);
  await write(a!, 'a2', 'a2 under the rotated keys');
  // Twice on B: its header's counter passes A's, so B's wins everywhere.
  await b!.v.changePassphrase(PASS, 'set on b');
  await b!.v.changePassphrase('set on b', 'set on b again');
  await write(b!, 'b2');
  await syncAll([a!, b!]).catch(() => undefined);
  // The sync engine keeps B's vault.json and A's as a conflict copy.
  await fs.copyFile(path.join(a!.dir, 'vault.json'), path.join(a!.dir, 'vault.sync-conflict-20261127-130000-AAAAAAA.json'));
  await fs.copyFile(path.join(b!.dir, 'vault.json'), path.join(a!.dir, 'vault.json'));
  await fs.copyFile(path.join(a!.dir, 'vault.sync-conflict-20261127-130000-AAAAAAA.json'), path.join(b!.dir, 'vault.sync-conflict-20261127-130000-AAAAAAA.json'));
  await expect(a!.v.ingest()).rejects.toMatchObject({ code: 'LOCKED' });
  // A's user knows only the passphrase it rotated with: it opens, once, through that rotation's keys file.
  await a!.v.unlock(PASS);
  expect(a!.v.notices().noticeKeys?.some((k) => k.key === 'errors:notice.openedThrough')).toBe(true);
  for (const n of ['a1', 'b1', 'b2']) expect(await read(a!, n)).toBe(n);
  expect(await read(a!, 'a2')).toBe('a2 under the rotated keys');
  await write(a!, 'a3');
  await syncAll([a!, b!]);
  // B (never given the rotated keys' passphrase header) reads A's writes through A's keys file.
  await b!.v.ingest();
  expect(await read(b!, 'a2')).toBe('a2 under the rotated keys');
  expect(await read(b!, 'a3')).toBe('a3');
  for (const c of [a!, b!]) expect(await c.v.verify()).toMatchObject({ ok: true });
  // The rotation's header went from A's folder once A's keys file held its key: the old passphrase opens nothing now.
  expect((await fs.readdir(a!.dir)).filter((n) => n.endsWith('.json'))).toEqual(['vault.json']);
  a!.v.lock();
  await expect(a!.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  await a!.v.unlock('set on b again');
  expect(await read(a!, 'a2')).toBe('a2 under the rotated keys');
  // B's copy of that header goes at its next unlock too (its keys file now holds the rotation's key).
  b!.v.lock();
  await b!.v.unlock('set on b again');
  expect((await fs.readdir(b!.dir)).filter((n) => n.endsWith('.json'))).toEqual(['vault.json']);
});

it('a rotation whose vault.json cannot be written changes nothing: the old keys open, and its folder of the new epoch goes by the next open', async () => {
  const [a] = await computers(1);
  await write(a!, 'a1');
  await a!.v.close();
  const e1 = await epochOf(a!.dir);
  // vault.json's replacement fails (a full disk, say) after everything of the new epoch was written.
  let failing = true;
  const fsx: VaultFs = { ...nodeFs, rename: async (from, to) => (failing && path.basename(to) === 'vault.json' ? Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' })) : nodeFs.rename(from, to)) };
  const opts = { stateDir: path.join(room.root, 's0'), format2: true, ackDelayMs: 0, journalLimit: 4, fs: fsx };
  const v = await Vault.open(a!.dir, opts);
  await v.unlock(PASS);
  await expect(v.rotateKeys(PASS)).rejects.toThrow();
  await v.close();
  failing = false;
  expect(await epochOf(a!.dir)).toBe(e1);
  const again = await Vault.open(a!.dir, opts);
  await again.unlockWithRecoveryKey(room.recovery);
  expect(await epochFolders(a!.dir)).toEqual(new Set([e1.slice(0, 8)]));
  expect(await read({ dir: a!.dir, v: again }, 'a1')).toBe('a1');
  expect(await again.verify()).toMatchObject({ ok: true });
  await again.close();
});
