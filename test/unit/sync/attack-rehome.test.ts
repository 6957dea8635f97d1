/**
 * Attacks on the fork guard (docs/sync-design.md §7 "Forks", §12.8): rehoming when the own files went back, the own
 * mark in the state folder, own-fork detection and the rebuild. A test marked `it.fails` is a finding: its comment
 * says what breaks and how.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { type Computer, mirror, session, syncAll, vaultRoom } from './carry-vaults';
import { FLOOR, PASS } from './two-computers';

const { room, computers, openAs, cloned } = vaultRoom('attack-rehome');

const note = (v: Computer['v'], p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });
const have = (x: Computer, names: string[]) => Promise.all(names.map((n) => x.v.memory.readFile(`/memories/${n}.md`).catch(() => '-')));
const marksFile = async (i: number) => {
  const s = path.join(room.root, `s${i}`);
  const f = (await fs.readdir(s)).find((n) => n.endsWith('.devices'))!;
  return path.join(s, f);
};
async function replace(dir: string, from: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.cp(from, dir, { recursive: true });
}



/** B writes b0 and the computers `to` get it; B's vault folder is copied (the backup, returned); B writes b1..b`n`. */
async function backupAfterB0(b: Computer, to: Computer[], n: number): Promise<string> {
  await note(b.v, '/memories/b0.md', 'b0');
  await syncAll(to);
  const old = path.join(room.root, 'b-backup');
  await fs.cp(b.dir, old, { recursive: true });
  for (let i = 1; i <= n; i++) await note(b.v, `/memories/b${i}.md`, `b${i}`);
  return old;
}

/** B wrote b0 and every computer got it; B's vault folder is copied; B writes b1..b3 (carried to A); A names B `Laptop`; B closes and its vault folder is put back. */
async function vaultRestored(cs: Computer[]): Promise<string> {
  const [a, b] = cs as [Computer, Computer];
  const old = await backupAfterB0(b, cs, 3);
  const was = (await b.v.internal.device!(false))!;
  await a.v.renameDevice(was, 'Laptop');
  await syncAll(cs);
  await b.v.close();
  await replace(b.dir, old);
  return was;
}

const notices = (c: Computer) => (session(c.v)?.store.notices ?? []).map((n) => JSON.stringify(n)).join();

// ---------------------------------------------------------------------------------------------------------------
// 1. An own fork found while loading; the marks file.

// FINDING (lock-out, severe; fixed): a clone of B (its state and vault folders copied to another computer) writes under
// B's id while B is closed, and the sync engine replaces B's segment with the clone's longer copy of it. B's state
// folder remembers its own last record (marks.ts), which is in no file now: the load's ingest sees the own fork
// (visible.ts `ownFork`), rehomes and rebuilds, and then Store2.load went on with `resumeOwn()` for the id it had
// captured before (`me`) while `this.device` was already undefined: scan(undefined) threw, and every unlock failed with
// "Could not read the vault." for good (nothing persisted the rehome, so each open found the fork again). Fixed in
// store2.ts `load`: resume only when the ingest left a device (`this.device`); main's 2b9df5e made the same fix.
// Failed on 0d7c249.
it("a clone's longer copy of B's segment replacing B's own while B is closed: B still unlocks, reports the fork and writes on as a new computer", async () => {
  const cs = await computers(2);
  const [a] = cs as [Computer, Computer];
  const { me, b, clone } = await cloned(cs);
  await note(b.v, '/memories/from-b.md', 'b');
  await b.v.close();
  await note(clone.v, '/memories/from-clone.md', 'clone');
  await note(clone.v, '/memories/from-clone2.md', 'clone2');
  await mirror(clone, b);
  const b2 = await openAs(1);
  expect((await b2.v.verify()).problems.join('\n')).toMatch(/this computer \(device [0-9a-f]{8}…\): its record at seq \d+ was replaced/);
  await note(b2.v, '/memories/b2.md', 'b2');
  expect(await b2.v.internal.device!(false)).not.toBe(me);
  await syncAll([a, b2, clone]);
  expect(await have(b2, ['b0', 'from-clone', 'from-clone2', 'b2'])).toEqual(['b0', 'clone', 'clone2', 'b2']);
  expect(await have(a, ['b0', 'b2'])).toEqual(['b0', 'b2']);
  // Once rehomed and reopened, nothing is left to report.
  await b2.v.close();
  const b3 = await openAs(1);
  expect(await b3.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// FINDING (lock-out, severe; fixed): the same crash from a state folder's marks file whose own tag is wrong (hostile,
// or damaged): every unlock failed with "Could not read the vault.". Now B rehomes once and goes on.
it('a wrong own tag in the marks file (state folder): B still unlocks, keeps its data, and rehomes only once', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await note(b.v, '/memories/b0.md', 'b0');
  await syncAll(cs);
  const me = (await b.v.internal.device!(false))!;
  await b.v.close();
  const f = await marksFile(1);
  const marks = JSON.parse(await fs.readFile(f, 'utf8')) as Record<string, { seq: number; tag: string }>;
  marks[me]!.tag = '0000000000000000';
  await fs.writeFile(f, JSON.stringify(marks));
  const b2 = await openAs(1);
  expect(await have(b2, ['b0'])).toEqual(['b0']);
  await note(b2.v, '/memories/b1.md', 'b1');
  const now = (await b2.v.internal.device!(false))!;
  expect(now).not.toBe(me);
  await b2.v.close();
  const b3 = await openAs(1);
  await note(b3.v, '/memories/b2.md', 'b2');
  expect(await b3.v.internal.device!(false)).toBe(now);
  await syncAll([a, b3]);
  for (const x of [a, b3]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
}, 30_000);

// What held: a huge own seq in the marks file costs one rehome, no data; the second open keeps the new id.
it('a huge own seq in the marks file: one rehome, nothing lost, the new id kept', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await note(b.v, '/memories/b0.md', 'b0');
  await syncAll(cs);
  const me = (await b.v.internal.device!(false))!;
  await b.v.close();
  const f = await marksFile(1);
  const marks = JSON.parse(await fs.readFile(f, 'utf8')) as Record<string, { seq: number; tag: string }>;
  marks[me]!.seq = Number.MAX_SAFE_INTEGER;
  await fs.writeFile(f, JSON.stringify(marks));
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b1.md', 'b1');
  const now = (await b2.v.internal.device!(false))!;
  expect(now).not.toBe(me);
  await b2.v.close();
  const b3 = await openAs(1);
  await note(b3.v, '/memories/b2.md', 'b2');
  expect(await b3.v.internal.device!(false)).toBe(now);
  await syncAll([a, b3]);
  for (const x of [a, b3]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
}, 30_000);

// What held: garbage in the marks file is read as no marks.
it('garbage in the marks file: B unlocks and writes under its id', async () => {
  const cs = await computers(2);
  const [, b] = cs as [Computer, Computer];
  await note(b.v, '/memories/b0.md', 'b0');
  const me = (await b.v.internal.device!(false))!;
  await b.v.close();
  for (const junk of ['{', 'null', '[1,2]', '{"__proto__":{"seq":1}}', `{"${me}":{"seq":"9","tag":1}}`]) {
    await fs.writeFile(await marksFile(1), junk);
    const b2 = await openAs(1);
    await note(b2.v, '/memories/b0.md', junk);
    expect(await b2.v.internal.device!(false)).toBe(me);
    await b2.v.close();
  }
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// 2. The old id's succession (succeed2) across a close or a crash.

// FINDING (the old id never forgotten, moderate; fixed): the restored B mints its new id at unlock (announce2 → writable →
// ensureDevice) and then writes `retire` of the old id (succeed2). A power cut after the new id is durably in the state
// folder and before the retire record leaves the new id and no trace of the old one: `left` lived only in memory, so
// the next open never retires it. Every computer then lists the old "Laptop" as a live computer that is `behind` for
// ever, and keeps every replaced value for it (kv.ts `superseded`), until the user finds and forgets it by hand. The
// name the user gave it is not carried over either. Fixed: the device record keeps the id it replaced (device.ts
// `left`, written with the new id by ensureDevice), openSession2 hands it to the store, and announce2 runs succeed2
// (which writes only what is missing) at every open. Failed before the fix (the old id not forgotten).
it('a crash between the new id written and the retire of the old one: the old id is still forgotten and its name carried, at the next open', async () => {
  const cs = await computers(2);
  const [a] = cs as [Computer, Computer];
  const was = await vaultRestored(cs);
  // The first write of the restored B dies right after the new id is on disk (ensureDevice), before any record.
  const { ensureDevice } = await import('../../../electron/core/vault/sync/device');
  const vaultId = (await fs.readdir(path.join(room.root, 's1'))).find((n) => n.endsWith('.device'))!.slice(0, 32);
  await ensureDevice(path.join(room.root, 's1'), vaultId, undefined, undefined, was);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b4.md', 'b4');
  await syncAll([a, b2]);
  const now = await b2.v.internal.device!(false);
  expect(now).not.toBe(was);
  for (const x of [a, b2]) {
    const list = await x.v.devices();
    expect(list.find((d) => d.id === was)).toMatchObject({ forgotten: true });
    expect(list.find((d) => d.id === now)).toMatchObject({ name: 'Laptop' });
  }
}, 30_000);

// FINDING (the user's name for the computer lost, low; fixed as above, failed before): the same without a crash. The restored B mints and retires at
// unlock; the name A's user gave it ("Laptop") has not reached B yet (its restored files predate it). succeed2 carries
// the name when it arrives, but only in that session: B closed before the sync engine brought it, and after the next
// open (`left` forgotten) B is listed under its host name, the "Laptop" entry forgotten beside it.
it('a restored B closing before the name the user gave it arrives: the name is still carried to its new id', async () => {
  const cs = await computers(2);
  const [a] = cs as [Computer, Computer];
  const was = await vaultRestored(cs);
  const b1 = await openAs(1);
  expect(session(b1.v).store.left).toBe(was);
  await b1.v.close();
  const b2 = await openAs(1);
  await syncAll([a, b2]);
  const now = await b2.v.internal.device!(false);
  for (const x of [a, b2]) {
    const list = await x.v.devices();
    expect(list.find((d) => d.id === was)).toMatchObject({ forgotten: true });
    expect(list.find((d) => d.id === now)).toMatchObject({ name: 'Laptop' });
  }
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// 3. The own files going back while the vault is open.

// FINDING (acknowledged writes lost, severe; fixed): B's own segment that its journal holds open is replaced by an
// older copy of itself while B is open, the way a restore (Time Machine, rsync) or a sync engine (Syncthing's conflict
// handling, Dropbox's rewind) writes a file: beside it, then renamed over. B's journal kept appending to its open
// handle, the old inode no name leads to any more: b2, written and acknowledged after the restore, was in no file. B
// could not read it at once, nothing was reported, it never reached A, and after a reopen B listed b2 as "damaged or
// missing". Fixed: before each append the journal checks that the file at its segment's name still has the size it
// wrote (journal2.ts `replacedOnDisk`, which also reopens it by name); if not, Store2.append reads the folder again
// (which rehomes when the own files went back, store2.ts `ownWentBack`, below) and fails that write (not
// acknowledged); the next one goes on under a new id.
// Failed before the fix (b2 '-' on B at once, missing on A, DAMAGED on B after a reopen).
for (const between of ['an ingest', 'no ingest'] as const) {
  it(`B's open own segment replaced by an older copy of itself while B is open (${between} before the next write): every write acknowledged after that is kept`, async () => {
    const cs = await computers(2);
    const [a, first] = cs as [Computer, Computer];
    await first.v.close();
    const b = await openAs(1, { journalLimit: 1000 });
    await note(b.v, '/memories/b0.md', 'b0');
    await syncAll([a, b]);
    const me = (await b.v.internal.device!(false))!;
    const own = path.join(b.dir, 'devices', me);
    const segs = ((await fs.readdir(own, { recursive: true })) as string[]).filter((f) => path.basename(f).startsWith('j-'));
    const copies = new Map<string, Buffer>();
    for (const f of segs) copies.set(f, await fs.readFile(path.join(own, f)));
    await note(b.v, '/memories/b1.md', 'b1');
    for (const [f, bytes] of copies) {
      await fs.writeFile(path.join(own, `${f}.restore`), bytes);
      await fs.rename(path.join(own, `${f}.restore`), path.join(own, f));
    }
    if (between === 'an ingest') await b.v.ingest();
    // A write that fails is not acknowledged: the user (or the app) tries again.
    await note(b.v, '/memories/b2.md', 'b2').catch(() => note(b.v, '/memories/b2.md', 'b2'));
    const shown = await have(b, ['b2']);
    await syncAll([a, b]);
    await b.v.close();
    const b2 = await openAs(1);
    await syncAll([a, b2]);
    expect(shown).toEqual(['b2']);
    for (const x of [a, b2]) expect(await have(x, ['b0', 'b2'])).toEqual(['b0', 'b2']);
    expect(await a.v.verify()).toMatchObject({ ok: true });
  }, 30_000);
}

// FINDING (acknowledged writes lost, severe; fixed): the same with a copy of the segment that is not older: a sync
// engine or a backup tool writing the same bytes over it (a new file at the name; test/unit/sync/store2.test.ts's own
// harness does this with fs.cp). B's next records went to the old file, which no name leads to: a write acknowledged
// after that (here b1) was in no file, and its seq a gap for every other computer. Fixed: the journal appends at the
// name from then on (journal2.ts `replacedOnDisk` reopens it when the size is the one it wrote). Failed before the fix.
it("B's open own segment written over by an identical copy of itself: the next acknowledged write is kept and reaches A", async () => {
  const cs = await computers(2);
  const [a, first] = cs as [Computer, Computer];
  await first.v.close();
  const b = await openAs(1, { journalLimit: 1000 });
  await note(b.v, '/memories/b0.md', 'b0');
  const me = (await b.v.internal.device!(false))!;
  const own = path.join(b.dir, 'devices', me);
  for (const f of ((await fs.readdir(own, { recursive: true })) as string[]).filter((x) => path.basename(x).startsWith('j-'))) {
    await fs.writeFile(path.join(own, `${f}.copy`), await fs.readFile(path.join(own, f)));
    await fs.rename(path.join(own, `${f}.copy`), path.join(own, f));
  }
  await note(b.v, '/memories/b1.md', 'b1');
  await note(b.v, '/memories/b2.md', 'b2');
  await syncAll([a, b]);
  await b.v.close();
  const b2 = await openAs(1);
  await syncAll([a, b2]);
  for (const x of [a, b2]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
  expect(await b2.v.internal.device!(false)).toBe(me);
  for (const x of [a, b2]) expect(await x.v.verify()).toMatchObject({ ok: true });
}, 30_000);

// FINDING (later writes held back, then memories no computer can read, moderate to severe; fixed): B's vault folder is
// restored from a backup while B is open (the app, no per-call lock), and the records B wrote after the backup (b1..b3)
// are on no other computer. The ingest saw nothing (`overtaken` only looks for own seqs past the next one; resumeOwn
// counts the state's own frontier, which still holds b1..b3, as what the files hold), so B wrote b4 and b5 as its old
// id at the next seqs, past a gap no file fills: A applied nothing of B ("device …: seq 4–6 missing") until B's next
// checkpoint, which A then joined; that checkpoint listed b1..b3, whose records and blobs went with the restore, so
// from then on both computers listed b1..b3, every read DAMAGED, verify failing on both for good. B was never told.
// b1..b3 went with the restore; the rest was the guard missing it. Fixed in store2.ts `ingest` (`ownWentBack`): own
// files that end before the state's own frontier are told (ownFilesOlder), and B rehomes and rebuilds its state from
// the files, as for an own fork. Failed before the fix.
it("B's vault folder restored under an open B, its newer records on no other computer: B's later writes still reach A", async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  const old = await backupAfterB0(b, [a, b], 3);
  await replace(b.dir, old);
  await b.v.ingest();
  await note(b.v, '/memories/b4.md', 'b4');
  await note(b.v, '/memories/b5.md', 'b5');
  await syncAll([a, b]);
  const first = { have: await have(a, ['b0', 'b4', 'b5']), waiting: await a.v.ingest() };
  await b.v.close();
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b6.md', 'b6');
  await syncAll([a, b2]);
  expect(first).toEqual({ have: ['b0', 'b4', 'b5'], waiting: [] });
  expect(await have(a, ['b0', 'b4', 'b5', 'b6'])).toEqual(['b0', 'b4', 'b5', 'b6']);
  expect((await a.v.verify()).problems).toEqual([]);
  // B says, truly, that its old id's files went back and what it wrote after them is not here.
  for (const p of (await b2.v.verify()).problems) expect(p).toMatch(/its files went back from seq \d+ to \d+ .*is not here/);
}, 30_000);

// FINDING (memories listed that no computer can read, verify failing everywhere for good, moderate; fixed as above,
// failed before): the same restore under an open B with a per-call lock (the CLI, MCP). Each call resumes the journal,
// so B's later writes did reach A, but B's next checkpoint held b1..b3 (applied in memory when written) whose records
// and blobs went with the restore: A joined it and listed b1..b3, every read DAMAGED, verify failing on A and B for
// ever. B was never told its files went back.
it("B's vault folder restored under an open per-call B: nothing unreadable is listed anywhere afterwards", async () => {
  const cs = await computers(2);
  const [a, first] = cs as [Computer, Computer];
  await first.v.close();
  const b = await openAs(1, { lockPerCall: true });
  const old = await backupAfterB0(b, [a, b], 3);
  await replace(b.dir, old);
  await b.v.ingest();
  for (let i = 4; i <= 9; i++) await note(b.v, `/memories/b${i}.md`, `b${i}`);
  await syncAll([a, b]);
  expect(await have(a, ['b0', 'b4', 'b9'])).toEqual(['b0', 'b4', 'b9']);
  expect((await a.v.verify()).problems).toEqual([]);
  // B says, truly, that its old id's files went back and what it wrote after them is not here.
  for (const p of (await b.v.verify()).problems) expect(p).toMatch(/its files went back from seq \d+ to \d+ .*is not here/);
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// 4. False positives: a computer that was never restored never rehomes.

/** A seeded random number generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

it('two processes of one computer (per call) and a second computer never make B rehome', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await note(b.v, '/memories/start.md', 'x');
  const me = (await b.v.internal.device!(false))!;
  await b.v.close();
  const procs: Computer[] = [await openAs(1, { lockPerCall: true }), await openAs(1, { lockPerCall: true })];
  const r = rng(Number(process.env.MNEMO_SEED ?? 1));
  const written = new Map<string, string>();
  for (let step = 0; step < 120; step++) {
    const k = Math.floor(r() * procs.length);
    const p = procs[k]!;
    const x = r();
    if (x < 0.45) {
      const name = `/memories/m${Math.floor(r() * 12)}.md`;
      const text = `s${step}`;
      await note(p.v, name, text);
      written.set(name, text);
    } else if (x < 0.55) await p.v.internal.putJSON('settings', { step });
    else if (x < 0.65) {
      await p.v.close();
      procs[k] = await openAs(1, { lockPerCall: true });
    } else if (x < 0.8) {
      await note(a.v, `/memories/a${step}.md`, 'a');
      await mirror(a, { dir: b.dir });
      await mirror({ dir: b.dir, v: procs[0]!.v }, a);
      await a.v.ingest();
    } else await p.v.ingest();
    for (const q of procs) {
      const st = session(q.v)?.store;
      if (!st) continue;
      expect(st.left, `step ${step}`).toBeUndefined();
      expect(notices(q), `step ${step}`).not.toMatch(/ownFilesOlder|ownReplaced/);
    }
  }
  for (const q of procs) await q.v.ingest();
  expect(await procs[0]!.v.internal.device!(false)).toBe(me);
  for (const [name, text] of written) for (const q of procs) expect(await q.v.memory.readFile(name)).toBe(text);
}, 120_000);



// ---------------------------------------------------------------------------------------------------------------
// 5. Which branch of an own fork a computer keeps.

/** Two computers on a new format-2 vault under `root` (its own folders), as vaultRoom's, and their opener. */
async function world(root: string, opened: Vault[]): Promise<{ a: Computer; b: Computer; open: (i: number) => Promise<Computer> }> {
  const opts = (i: number) => ({ stateDir: path.join(root, `s${i}`), format2: true, ackDelayMs: 0, journalLimit: 4 });
  const made = await Vault.create(path.join(root, 'v0'), PASS, { kdf: FLOOR, ...opts(0) });
  await made.vault.close();
  await fs.cp(path.join(root, 'v0'), path.join(root, 'v1'), { recursive: true });
  const open = async (i: number) => {
    const dir = path.join(root, `v${i}`);
    const v = await Vault.open(dir, opts(i));
    await v.unlockWithRecoveryKey(made.recoveryKey);
    opened.push(v);
    return { dir, v };
  };
  return { a: await open(0), b: await open(1), open };
}

// FINDING (the computers disagree for good, each missing an acknowledged memory the other shows, severe; fixed on main; made
// attack-lose's "…B writing before the others' files arrive: B reports the fork, shows what the files hold…" fail about
// half the runs): B's state and vault folders are restored from one backup and B writes b9 before the others' files
// reach it. B's b9 goes into a new segment `j-<seq>-<random>` at the seq where A's copy of B's older branch holds b1, so
// once the files meet, both segments lie in B's folder, and nothing makes one of them go: two records at one seq of one
// device. A applied b1 there long ago and never looks again. B (rehomed and rebuilt from the files, then reading its old
// id as another computer's) takes the confirmed record whose FILE NAME sorts first (visible.ts `pick`): with the random
// part of the name, b9 half the time. Then B shows b9 and not b1, A shows b1 and not b9, for good, verify on A says
// nothing, and B's later records depending on that seq name b9's version where A reads b1's. The rebuild was to make B
// show "what the files hold"; both branches are in the files, and which one wins is a coin toss that A did not make.
// Run 10 times here (each a fresh vault): all 10 agreeing by chance is about 1 in 1000. Fixed on main by 2b9df5e
// (landed while this attack ran, merged here): the copy that finds its record beside another copy's gives way, writes
// its memory texts again under its new id and removes the segments holding only its dropped records, so every
// computer follows the same branch. Failed on 0d7c249 (run 1 of 10 typically).
it('a whole computer restored from one backup and writing before the files meet: B and A end up showing the same memories (10 runs)', async () => {
  const opened: Vault[] = [];
  try {
    for (let k = 0; k < 10; k++) {
      const root = path.join(room.root, `w${k}`);
      const { a, b, open } = await world(root, opened);
      await note(b.v, '/memories/b0.md', 'b0');
      await syncAll([a, b]);
      await b.v.close();
      await fs.cp(path.join(root, 's1'), path.join(root, 's1-backup'), { recursive: true });
      await fs.cp(b.dir, path.join(root, 'v1-backup'), { recursive: true });
      const b1 = await open(1);
      for (let i = 1; i <= 3; i++) await note(b1.v, `/memories/b${i}.md`, `b${i}`);
      await syncAll([a, b1]);
      await b1.v.close();
      await replace(path.join(root, 's1'), path.join(root, 's1-backup'));
      await replace(b1.dir, path.join(root, 'v1-backup'));
      const b2 = await open(1);
      await note(b2.v, '/memories/b9.md', 'b9');
      await syncAll([a, b2]);
      await note(b2.v, '/memories/b10.md', 'b10');
      await syncAll([a, b2]);
      const names = ['b0', 'b1', 'b2', 'b3', 'b9', 'b10'];
      expect(await have(b2, names), `run ${k}`).toEqual(await have(a, names));
    }
  } finally {
    for (const v of opened) await v.close().catch(() => undefined);
  }
}, 120_000);

// ---------------------------------------------------------------------------------------------------------------
// 6. Three computers, restores in a row, a forgotten computer, a read-only look.

it('B restored while C is offline: all three converge, the old id forgotten and named once', async () => {
  const cs = await computers(3);
  const [a, b, c] = cs as [Computer, Computer, Computer];
  const old = await backupAfterB0(b, cs, 3);
  const was = (await b.v.internal.device!(false))!;
  await a.v.renameDevice(was, 'Laptop');
  await syncAll([a, b]);
  await b.v.close();
  await replace(b.dir, old);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b4.md', 'b4');
  await syncAll([a, b2]);
  await note(c.v, '/memories/c1.md', 'c1');
  await syncAll([a, b2, c]);
  const now = (await b2.v.internal.device!(false))!;
  const names = ['b0', 'b1', 'b2', 'b3', 'b4', 'c1'];
  for (const x of [a, b2, c]) {
    expect(await have(x, names)).toEqual(names);
    const list = await x.v.devices();
    expect(list.find((d) => d.id === was)).toMatchObject({ forgotten: true });
    expect(list.find((d) => d.id === now)).toMatchObject({ name: 'Laptop', forgotten: false });
    expect(await x.v.verify()).toMatchObject({ ok: true });
  }
}, 60_000);

it('B restored twice from the same backup (once as its first id, then as its second): nothing lost, both old ids forgotten', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  const old = await backupAfterB0(b, cs, 3);
  const first = (await b.v.internal.device!(false))!;
  await syncAll(cs);
  await b.v.close();
  await replace(b.dir, old);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b4.md', 'b4');
  const second = (await b2.v.internal.device!(false))!;
  await syncAll([a, b2]);
  await b2.v.close();
  await replace(b.dir, old);
  const b3 = await openAs(1);
  await note(b3.v, '/memories/b5.md', 'b5');
  const third = (await b3.v.internal.device!(false))!;
  await syncAll([a, b3]);
  expect(new Set([first, second, third]).size).toBe(3);
  const names = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
  for (const x of [a, b3]) {
    expect(await have(x, names)).toEqual(names);
    const list = await x.v.devices();
    expect(list.filter((d) => !d.forgotten).map((d) => d.id).sort()).toEqual([(await a.v.internal.device!(false))!, third].sort());
    expect(await x.v.verify()).toMatchObject({ ok: true });
  }
}, 60_000);

it('B forgotten on A, then restored from a backup: B comes back as a new computer and nothing is lost', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  const old = await backupAfterB0(b, cs, 1);
  const was = (await b.v.internal.device!(false))!;
  await syncAll(cs);
  await b.v.close();
  await a.v.forgetDevice(was);
  await replace(b.dir, old);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b2.md', 'b2');
  await syncAll([a, b2]);
  const now = (await b2.v.internal.device!(false))!;
  for (const x of [a, b2]) {
    expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
    const list = await x.v.devices();
    expect(list.find((d) => d.id === was)).toMatchObject({ forgotten: true });
    expect(list.find((d) => d.id === now)).toMatchObject({ forgotten: false });
  }
}, 60_000);

it('a read-only look at a restored folder writes nothing and mints nothing; the next writable open rehomes once', async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  const old = await backupAfterB0(b, cs, 1);
  const was = (await b.v.internal.device!(false))!;
  await syncAll(cs);
  await b.v.close();
  await replace(b.dir, old);
  const before = JSON.stringify(await fs.readdir(b.dir, { recursive: true }));
  const ro = await openAs(1, { readOnly: true });
  expect(notices(ro)).toMatch(/ownFilesOlder/);
  await ro.v.ingest();
  expect(await ro.v.internal.device!(false)).toBe(was);
  await ro.v.close();
  expect(JSON.stringify(await fs.readdir(b.dir, { recursive: true }))).toBe(before);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b2.md', 'b2');
  expect(await b2.v.internal.device!(false)).not.toBe(was);
  await syncAll([a, b2]);
  for (const x of [a, b2]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
}, 60_000);

// ---------------------------------------------------------------------------------------------------------------
// 7. Scale.

it('the rebuild after an own fork on a vault of 1000 memories costs about one more load', async () => {
  const cs = await computers(1);
  const [b0] = cs as [Computer];
  await b0.v.close();
  const b = await openAs(1 - 1, { journalLimit: 256 });
  for (let i = 0; i < 1000; i++) await note(b.v, `/memories/m${i}.md`, `memory ${i} ${'x'.repeat(200)}`);
  const me = (await b.v.internal.device!(false))!;
  await b.v.close();
  let t = Date.now();
  const plain = await openAs(0, { journalLimit: 256 });
  const plainMs = Date.now() - t;
  await plain.v.close();
  const f = await marksFile(0);
  const marks = JSON.parse(await fs.readFile(f, 'utf8')) as Record<string, { seq: number; tag: string }>;
  marks[me]!.tag = '0000000000000000';
  await fs.writeFile(f, JSON.stringify(marks));
  const heap = process.memoryUsage().heapUsed;
  t = Date.now();
  const forked = await openAs(0, { journalLimit: 256 });
  const forkedMs = Date.now() - t;
  console.log({ plainMs, forkedMs, heapMB: Math.round((process.memoryUsage().heapUsed - heap) / 1e6) });
  expect(forked.v.memory.list('/memories', 1)).toHaveLength(1000);
  expect(await forked.v.memory.readFile('/memories/m999.md')).toContain('memory 999');
  expect(forkedMs).toBeLessThan(plainMs * 4 + 2000);
}, 300_000);

// ---------------------------------------------------------------------------------------------------------------
// 8. A failing disk during an append.

// FINDING (a computer that was never restored splits its identity, moderate; fixed): an append's write fails after its bytes
// reached the file (EIO), and cutting them off fails too (journal2.ts `write`: `broken`). The record is whole in the
// segment but was never acknowledged. The retry starts a new segment at the same seq (rollOver) and succeeds. Both
// records now lie in B's own folder at that seq; the next ingest's `ownReplaced` compares every record at a seq with
// the tag this process wrote there, takes the unacknowledged one for another copy's record, and B reports "its record
// at seq … was replaced by a different one (a clone, or a restore)", rehomes, rebuilds and writes on as a new computer
// with its old id retired, though nothing was restored or cloned. (The marks check, visible.ts `ownFork`, accepts any
// record at the seq with the right tag, so only the in-session check is fooled.) Fixed on this branch in store2.ts
// `ownReplaced` (only a confirmed record counts as another copy's); main's 2b9df5e moved that check to give-way.ts
// `replaced` with the same rule (visible.ts `replacedAt`), and the merge adds that a process seeing a seq first keeps
// the confirmed record's tag. Failed on 0d7c249 (B's device id changed, verify reported the fork).
it('a write that fails after its bytes landed and cannot be cut off, then succeeds on retry: B keeps its id and reports no fork', async () => {
  const cs = await computers(2);
  const [a, b0] = cs as [Computer, Computer];
  await b0.v.close();
  const { nodeFs } = await import('../../../electron/core/vault/fsio');
  let failNext = false;
  const flaky = {
    ...nodeFs,
    async open(file: string, mode: Parameters<typeof nodeFs.open>[1]) {
      const fh = await nodeFs.open(file, mode);
      return {
        get dsync() {
          return fh.dsync;
        },
        read: (buf: Uint8Array, pos: number) => fh.read(buf, pos),
        async write(buf: Uint8Array, pos: number) {
          const n = await fh.write(buf, pos);
          if (failNext && mode.startsWith('journal')) {
            failNext = false;
            throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          }
          return n;
        },
        async truncate(len: number) {
          if (mode.startsWith('journal') && failTruncate) throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
          return fh.truncate(len);
        },
        sync: () => fh.sync(),
        datasync: () => fh.datasync(),
        close: () => fh.close(),
      };
    },
  };
  let failTruncate = false;
  const b = await openAs(1, { fs: flaky, journalLimit: 1000 });
  await note(b.v, '/memories/b0.md', 'b0');
  await note(b.v, '/memories/b1.md', 'b1');
  const me = (await b.v.internal.device!(false))!;
  failNext = true;
  failTruncate = true;
  const failed = await note(b.v, '/memories/b2.md', 'b2 (failed)').catch((e: unknown) => e);
  failTruncate = false;
  expect(failed).toBeInstanceOf(Error);
  await note(b.v, '/memories/b2.md', 'b2');
  await syncAll([a, b]);
  expect((await b.v.verify()).problems).toEqual([]);
  expect(await b.v.internal.device!(false)).toBe(me);
  expect(session(b.v).store.left).toBeUndefined();
  for (const x of [a, b]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// 9. A clone's succession and the original that goes on.

// FINDING (the original computer flips between forgotten and known, retire records pile up, low to moderate; fixed):
// a clone of B finds its record replaced by B's (the original's), rehomes, and succeed2 retires the old id: B's own,
// live id (the clone cannot tell the two cases apart). B writes on, having seen the retire, so it is known again; then
// the clone's next ingest (announce2 → succeed2) retires it again, and so on after every write of B: 5 retire records in
// this test, B listed as forgotten on every computer between its writes, and the others not waiting for it meanwhile
// before they forget replaced values (kv.ts `superseded`). With the succession kept across opens (device.ts `left`) it
// would go on for ever. Fixed in devices.ts `succeed2`: the old id is retired once by a given new id.
it('a clone that rehomed retires the id the original goes on writing as at most once, and the original is known again', async () => {
  const cs = await computers(2);
  const [a] = cs as [Computer, Computer];
  const { me, b, clone } = await cloned(cs);
  await note(b.v, '/memories/from-b.md', 'b');
  await note(clone.v, '/memories/from-clone.md', 'clone');
  await syncAll([a, b, clone]);
  expect(session(clone.v).store.left).toBe(me);
  for (let i = 0; i < 4; i++) {
    await note(b.v, `/memories/b-more${i}.md`, `b ${i}`);
    await syncAll([a, b, clone]);
  }
  await clone.v.close();
  const c2 = await openAs(2);
  for (let i = 4; i < 6; i++) {
    await note(b.v, `/memories/b-more${i}.md`, `b ${i}`);
    await syncAll([a, b, c2]);
  }
  const retires = session(a.v).store.state.retired.get(me);
  expect(retires?.size ?? 0).toBeLessThanOrEqual(1);
  for (const x of [a, b, c2]) expect((await x.v.devices()).find((d) => d.id === me)).toMatchObject({ forgotten: false });
}, 60_000);

// ---------------------------------------------------------------------------------------------------------------
// 10. A restore to before the upgrade; another device's mark.

it("B's vault folder restored to before its first write (vault.json still format 1, no folder of B): nothing lost, both verify", async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await b.v.close();
  const old = path.join(room.root, 'b-backup');
  await fs.cp(b.dir, old, { recursive: true });
  const b1 = await openAs(1);
  for (let i = 0; i <= 2; i++) await note(b1.v, `/memories/b${i}.md`, `b${i}`);
  await note(a.v, '/memories/a0.md', 'a0');
  await syncAll([a, b1]);
  await b1.v.close();
  await replace(b.dir, old);
  const b2 = await openAs(1);
  await note(b2.v, '/memories/b3.md', 'b3');
  await syncAll([a, b2]);
  const names = ['a0', 'b0', 'b1', 'b2', 'b3'];
  for (const x of [a, b2]) {
    expect(await have(x, names)).toEqual(names);
    expect(await x.v.verify()).toMatchObject({ ok: true });
  }
}, 60_000);

it("a huge seq for another computer in B's marks file: B unlocks and keeps applying that computer's writes", async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  await note(a.v, '/memories/a0.md', 'a0');
  await note(b.v, '/memories/b0.md', 'b0');
  await syncAll(cs);
  const other = (await a.v.internal.device!(false))!;
  await b.v.close();
  const f = await marksFile(1);
  const marks = JSON.parse(await fs.readFile(f, 'utf8')) as Record<string, { seq: number; tag: string }>;
  marks[other] = { seq: Number.MAX_SAFE_INTEGER, tag: 'ffffffffffffffff' };
  await fs.writeFile(f, JSON.stringify(marks));
  const b2 = await openAs(1);
  await note(a.v, '/memories/a1.md', 'a1');
  await syncAll([a, b2]);
  expect(await have(b2, ['a0', 'a1', 'b0'])).toEqual(['a0', 'a1', 'b0']);
}, 60_000);

// ---------------------------------------------------------------------------------------------------------------
// 11. A restore under an open vault whose next write is due a checkpoint.

it("B's vault folder restored under an open B whose next write first writes a checkpoint: the write is kept (on retry), and nothing unreadable is listed", async () => {
  const cs = await computers(2);
  const [a, b] = cs as [Computer, Computer];
  // Enough own records that the next write starts with a checkpoint (journalLimit 4).
  const old = await backupAfterB0(b, [a, b], 3);
  await replace(b.dir, old);
  const errors: unknown[] = [];
  for (let i = 4; i <= 6; i++) await note(b.v, `/memories/b${i}.md`, `b${i}`).catch((e: unknown) => (errors.push(e), note(b.v, `/memories/b${i}.md`, `b${i}`)));
  // At most the first write after the restore fails, as a VaultError the window can say (not acknowledged).
  expect(errors.length).toBeLessThanOrEqual(1);
  for (const e of errors) expect(e).toMatchObject({ code: 'IO' });
  await syncAll([a, b]);
  expect(await have(a, ['b0', 'b4', 'b5', 'b6'])).toEqual(['b0', 'b4', 'b5', 'b6']);
  expect(await have(b, ['b0', 'b4', 'b5', 'b6'])).toEqual(['b0', 'b4', 'b5', 'b6']);
  expect((await a.v.verify()).problems).toEqual([]);
  for (const p of (await b.v.verify()).problems) expect(p).toMatch(/its files went back from seq \d+ to \d+ .*is not here/);
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// 12. A sync engine that puts a shorter, older copy of B's own segment back, then the longer one again.

for (const between of ['no ingest', 'an ingest'] as const) {
  it(`an older, shorter copy of B's open segment put back, then the longer one again (${between} meanwhile): nothing lost, B writes on`, async () => {
    const cs = await computers(2);
    const [a, first] = cs as [Computer, Computer];
    await first.v.close();
    const b = await openAs(1, { journalLimit: 1000 });
    await note(b.v, '/memories/b0.md', 'b0');
    const me = (await b.v.internal.device!(false))!;
    const own = path.join(b.dir, 'devices', me);
    const segs = ((await fs.readdir(own, { recursive: true })) as string[]).filter((f) => path.basename(f).startsWith('j-'));
    const short = new Map<string, Buffer>();
    for (const f of segs) short.set(f, await fs.readFile(path.join(own, f)));
    await note(b.v, '/memories/b1.md', 'b1');
    const long = new Map<string, Buffer>();
    for (const f of segs) long.set(f, await fs.readFile(path.join(own, f)));
    const put = async (copies: Map<string, Buffer>) => {
      for (const [f, bytes] of copies) {
        await fs.writeFile(path.join(own, `${f}.sync`), bytes);
        await fs.rename(path.join(own, `${f}.sync`), path.join(own, f));
      }
    };
    await put(short);
    if (between === 'an ingest') await b.v.ingest();
    await put(long);
    await note(b.v, '/memories/b2.md', 'b2').catch(() => note(b.v, '/memories/b2.md', 'b2'));
    await syncAll([a, b]);
    await b.v.close();
    const b2 = await openAs(1);
    await syncAll([a, b2]);
    for (const x of [a, b2]) expect(await have(x, ['b0', 'b1', 'b2'])).toEqual(['b0', 'b1', 'b2']);
    expect((await a.v.verify()).problems).toEqual([]);
    // Without a read between, nothing told B: it keeps its id.
    if (between === 'no ingest') expect(await b2.v.internal.device!(false)).toBe(me);
  }, 30_000);
}
