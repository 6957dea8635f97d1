/**
 * A passphrase changed on one computer reaches the others (docs/sync-design.md §7): vault.json and the copies a sync
 * engine makes of it when two computers change it at once (sync/header-copies.ts, headerfile-copies.ts `unwrapBest`,
 * `settle`, `follow`).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parseHeader, serializeHeader } from '../../../electron/core/vault/header';
import { hash, toHex } from '../../../electron/core/vault/crypto';
import { Vault } from '../../../electron/core/vault/vault';
import { vaultRoom, type Computer } from './carry-vaults';
import { carry, PASS } from './two-computers';

const { room, computers } = vaultRoom('pass-across');
const two = async () => (await computers(2)) as [Computer, Computer];
const CONFLICT = 'vault.sync-conflict-20261127-140000-ABCDEFG.json';

const header = (dir: string) => fs.readFile(path.join(dir, 'vault.json'));
const rootJson = async (dir: string) => (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
/** vault.json from `from` to `to`, as a sync engine delivers a newer file (and the device folders). */
async function carryAll(from: Computer, to: Computer): Promise<void> {
  await carry(from.dir, to.dir);
  await fs.writeFile(path.join(to.dir, 'vault.json'), await header(from.dir));
}
const changedElsewhere = /changed on another computer/;

it('a passphrase changed on one computer opens the vault on the other, which says why the old one no longer does', async () => {
  const [a, b] = await two();
  await a.v.changePassphrase(PASS, 'second passphrase here');
  await carryAll(a, b);
  // Unlocked meanwhile: the new header is taken, and work goes on.
  await b.v.ingest();
  await b.v.memory.writeFile('/memories/b.md', 'written after the change arrived', { mode: 'create', source: 'user' });
  b.v.lock();
  await expect(b.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.stringMatching(changedElsewhere) });
  // A plain typo is not reported as a change made elsewhere once this computer has seen the new header.
  expect(await b.v.unlock('second passphrase here')).toMatchObject({ rolledBack: false, damaged: [] });
  b.v.lock();
  await expect(b.v.unlock('not it at all')).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.not.stringMatching(changedElsewhere) });
  await b.v.unlock('second passphrase here');
  expect(await b.v.verify()).toEqual({ ok: true, problems: [] });
  expect(await b.v.memory.readFile('/memories/b.md')).toBe('written after the change arrived');
});

it('a computer unlocked while the passphrase changed elsewhere can still change it with the one it was unlocked with', async () => {
  const [a, b] = await two();
  b.v.lock();
  await b.v.unlock(PASS);
  await a.v.changePassphrase(PASS, 'set on the first computer');
  await carryAll(a, b);
  await b.v.changePassphrase(PASS, 'set on the second computer');
  const counterA = parseHeader(await header(a.dir), 2).counter!;
  expect(parseHeader(await header(b.dir), 2).counter).toBe(counterA + 1);
  await carryAll(b, a);
  await a.v.ingest();
  a.v.lock();
  await expect(a.v.unlock('set on the first computer')).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.stringMatching(changedElsewhere) });
  await expect(a.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  await a.v.unlock('set on the second computer');
  expect(await a.v.verify()).toEqual({ ok: true, problems: [] });
  // A passphrase that opens nothing of this session is still refused.
  await expect(b.v.changePassphrase('never set anywhere', 'x'.repeat(12))).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
});

it('passphrases changed on two computers at once: one wins on both, the other is deleted and its computer told', async () => {
  const [a, b] = await two();
  await a.v.changePassphrase(PASS, 'passphrase of computer A');
  await b.v.changePassphrase(PASS, 'passphrase of computer B');
  const ha = await header(a.dir);
  const hb = await header(b.dir);
  expect(parseHeader(ha, 2).counter).toBe(parseHeader(hb, 2).counter);
  // The sync engine keeps A's as vault.json on both, B's as its conflict copy.
  await carry(a.dir, b.dir);
  await carry(b.dir, a.dir);
  for (const dir of [a.dir, b.dir]) {
    await fs.writeFile(path.join(dir, 'vault.json'), ha);
    await fs.writeFile(path.join(dir, CONFLICT), hb);
  }
  // Every computer ranks them alike: the higher hash wins at the same counter.
  const aWins = toHex(hash(ha)) > toHex(hash(hb));
  const [winner, loser] = aWins ? [a, b] : [b, a];
  const [winPass, losePass] = aWins ? ['passphrase of computer A', 'passphrase of computer B'] : ['passphrase of computer B', 'passphrase of computer A'];
  await a.v.ingest();
  await b.v.ingest();
  for (const c of [a, b]) {
    expect(await rootJson(c.dir)).toEqual(['vault.json']);
    expect(await header(c.dir)).toEqual(aWins ? ha : hb);
  }
  winner.v.lock();
  await expect(winner.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  expect((await winner.v.unlock(winPass)).notices).toBeUndefined();
  loser.v.lock();
  await expect(loser.v.unlock(losePass)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.stringMatching(changedElsewhere) });
  const report = await loser.v.unlock(winPass);
  expect(report.notices).toEqual([expect.stringMatching(/at the same time/)]);
  // Said once.
  loser.v.lock();
  expect((await loser.v.unlock(winPass)).notices).toBeUndefined();
  for (const c of [a, b]) expect(await c.v.verify()).toEqual({ ok: true, problems: [] });
});

it('the conflict copy is settled at unlock too, and an old passphrase in a dominated copy does not open the vault', async () => {
  const [a, b] = await two();
  b.v.lock();
  await a.v.changePassphrase(PASS, 'the newer passphrase');
  // B's folder: the new vault.json arrived, its own old one kept as a copy.
  await fs.writeFile(path.join(b.dir, "vault (Laptop's conflicted copy 2026-11-27).json"), await header(b.dir));
  await carryAll(a, b);
  await expect(b.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.stringMatching(changedElsewhere) });
  // Refused, so nothing was settled yet.
  expect(await rootJson(b.dir)).toHaveLength(2);
  await b.v.unlock('the newer passphrase');
  expect(await rootJson(b.dir)).toEqual(['vault.json']);
  expect(await header(b.dir)).toEqual(await header(a.dir));
});

it('the best copy wins whichever file the sync engine named vault.json', async () => {
  const [a, b] = await two();
  b.v.lock();
  await a.v.changePassphrase(PASS, 'the newer passphrase');
  // Here the engine kept the old header as vault.json and put the new one beside it.
  await fs.writeFile(path.join(b.dir, 'vault 2.json'), await header(a.dir));
  await b.v.unlock('the newer passphrase');
  expect(await rootJson(b.dir)).toEqual(['vault.json']);
  expect(await header(b.dir)).toEqual(await header(a.dir));
  expect(await b.v.verify()).toEqual({ ok: true, problems: [] });
});

it('a forged copy is tried, ignored, never deleted, and named by verify; a forged vault.json is refused', async () => {
  const [, b] = await two();
  const real = parseHeader(await header(b.dir), 2);
  // Parses as this vault's header, with its real slots, at a counter above every other: but its MAC is not the key's.
  const forged = serializeHeader({ ...real, counter: (real.counter ?? 0) + 50 });
  await fs.writeFile(path.join(b.dir, 'vault 3.json'), forged);
  b.v.lock();
  await b.v.unlock(PASS);
  expect(await fs.readFile(path.join(b.dir, 'vault 3.json'))).toEqual(Buffer.from(forged));
  const report = await b.v.verify();
  expect(report.ok).toBe(false);
  expect(report.problems).toEqual([expect.stringMatching(/^vault 3\.json: a copy of vault\.json that this vault's key does not authenticate/)]);
  // The same forgery as vault.json itself, the real header beside it: refused as altered, and nothing is deleted.
  const realBytes = await header(b.dir);
  b.v.lock();
  await fs.writeFile(path.join(b.dir, 'vault.json'), forged);
  await fs.writeFile(path.join(b.dir, 'vault (copy).json'), realBytes);
  await expect(b.v.unlock(PASS)).rejects.toMatchObject({ code: 'DAMAGED' });
  expect(await rootJson(b.dir)).toEqual(['vault (copy).json', 'vault 3.json', 'vault.json']);
  expect(await header(b.dir)).toEqual(Buffer.from(forged));
});

it('a read-only open settles nothing on disk', async () => {
  const [a, b] = await two();
  await a.v.changePassphrase(PASS, 'the newer passphrase');
  const old = await header(b.dir);
  await fs.writeFile(path.join(b.dir, 'vault 2.json'), await header(a.dir));
  await b.v.close();
  const ro = await Vault.open(b.dir, { stateDir: path.join(room.root, 's1'), format2: true, readOnly: true });
  try {
    await ro.unlock('the newer passphrase');
    expect(await rootJson(b.dir)).toEqual(['vault 2.json', 'vault.json']);
    expect(await header(b.dir)).toEqual(old);
  } finally {
    await ro.close();
  }
});

it('a computer that opens the vault per call (the CLI, MCP) follows a passphrase changed elsewhere between two calls', async () => {
  const [a, b0] = await two();
  await b0.v.close();
  const b = await Vault.open(b0.dir, { stateDir: path.join(room.root, 's1'), format2: true, lockPerCall: true, ackDelayMs: 0 });
  try {
    await b.unlock(PASS);
    await b.memory.writeFile('/memories/before.md', 'one', { mode: 'create', source: 'cli' });
    await a.v.changePassphrase(PASS, 'the newer passphrase');
    await fs.writeFile(path.join(b0.dir, 'vault.json'), await header(a.dir));
    await b.memory.writeFile('/memories/after.md', 'two', { mode: 'create', source: 'cli' });
    expect(await b.memory.readFile('/memories/after.md')).toBe('two');
    expect(await b.verify()).toEqual({ ok: true, problems: [] });
  } finally {
    await b.close();
  }
  // Opened again: with the new passphrase, holding what was written before and after the change.
  const again = await Vault.open(b0.dir, { stateDir: path.join(room.root, 's1'), format2: true });
  try {
    await again.unlock('the newer passphrase');
    expect(await again.memory.readFile('/memories/before.md')).toBe('one');
    expect(await again.memory.readFile('/memories/after.md')).toBe('two');
  } finally {
    await again.close();
  }
});

it('the first write that makes a vault multi-device builds on a passphrase changed elsewhere, never undoing it', async () => {
  // A vault made by a format-1 build: format 1 on disk until its first change.
  const [a, b] = (await computers(2, { v1: true })) as [Computer, Computer];
  expect(parseHeader(await header(a.dir), 2).version).toBe(1);
  await a.v.changePassphrase(PASS, 'changed before the upgrade');
  await fs.writeFile(path.join(b.dir, 'vault.json'), await header(a.dir));
  // B read vault.json before the change; its first write upgrades the header to format 2.
  await b.v.memory.writeFile('/memories/first.md', 'upgrades the vault', { mode: 'create', source: 'user' });
  // It keeps the counter of the header it upgrades: the newest, A's.
  expect(parseHeader(await header(b.dir), 2)).toMatchObject({ version: 2, counter: parseHeader(await header(a.dir), 2).counter });
  b.v.lock();
  await expect(b.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
  await b.v.unlock('changed before the upgrade');
  expect(await b.v.memory.readFile('/memories/first.md')).toBe('upgrades the vault');
});
