/**
 * A synced format-1 vault, two computers: A updated Mnemo (its first change
 * upgrades the vault), B still runs the old build and keeps writing the
 * format-1 layout (segments/, manifest.*, blobs/) until A's vault.json
 * arrives. What B wrote meanwhile must not be lost (docs/sync-design.md §8:
 * L is frozen for format-2 writers, not for readers), and once the upgrade
 * arrives B's old build refuses clearly; updated, B reads everything.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { Vault } from '../../../electron/core/vault/vault';
import { said, turn } from './turns';
import { carry, FLOOR, PASS } from './two-computers';

let root: string;
let a: string;
let b: string;
let recoveryKey: string;
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-upgrade-sync-'));
  a = path.join(root, 'va');
  b = path.join(root, 'vb');
  const made = await Vault.create(a, PASS, { kdf: FLOOR, stateDir: path.join(root, 'sa'), format2: false, journalLimit: 4 });
  recoveryKey = made.recoveryKey;
  const v = made.vault;
  await v.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
  await v.memory.writeFile('/memories/b.md', 'beta', { mode: 'create', source: 'user' });
  await v.internal.putJSON('settings', { theme: 'dark' });
  await v.close();
  await fs.cp(a, b, { recursive: true });
  // B opened it once with the old build (its own high-water mark).
  await (await open(b, 'sb', false)).close();
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

async function open(dir: string, state: string, format2: boolean): Promise<Vault> {
  const v = await Vault.open(dir, { stateDir: path.join(root, state), format2, ackDelayMs: 0, journalLimit: 4 });
  opened.push(v);
  await v.unlockWithRecoveryKey(recoveryKey);
  return v;
}

/** The format-1 files of `from` (all but vault.json and devices/) made the same in `to`, as a sync engine would. */
async function mirrorV1(from: string, to: string): Promise<void> {
  const list = async (d: string) => ((await fs.readdir(d, { recursive: true })) as string[]).filter((r) => r !== 'vault.json' && !r.startsWith('devices') && !r.includes('lock'));
  const src = await list(from);
  for (const rel of src) {
    const p = path.join(from, rel);
    if (!(await fs.stat(p)).isFile()) continue;
    await fs.mkdir(path.dirname(path.join(to, rel)), { recursive: true });
    await fs.copyFile(p, path.join(to, rel));
  }
  for (const rel of await list(to)) {
    const p = path.join(to, rel);
    if ((await fs.stat(p)).isFile() && !src.includes(rel)) await fs.rm(p);
  }
}

const text = (v: Vault, p: string) => v.memory.readFile(p).catch(() => undefined);

it('B (old build) writes, edits and deletes after A upgraded, before the upgrade reached it: A reads B’s changes and keeps its own', async () => {
  const va = await open(a, 'sa', true);
  await va.memory.writeFile('/memories/from-a.md', 'A after updating', { mode: 'create', source: 'user' });
  const vb = await open(b, 'sb', false);
  await vb.memory.writeFile('/memories/from-b.md', 'B on the old build', { mode: 'create', source: 'user' });
  await vb.memory.writeFile('/memories/b.md', 'beta edited on B', { mode: 'update', source: 'user' });
  await vb.internal.putJSON('settings', { theme: 'light' });
  await vb.close();
  await va.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  expect(await text(v, '/memories/from-a.md')).toBe('A after updating');
  expect(await text(v, '/memories/from-b.md')).toBe('B on the old build');
  expect(await text(v, '/memories/b.md')).toBe('beta edited on B');
  expect(await v.internal.getJSON('settings')).toEqual({ theme: 'light' });
  expect(await v.verify()).toMatchObject({ ok: true });
  await v.close();
  // The upgrade reaches B: its old build refuses clearly; updated, it reads everything.
  await carry(a, b);
  await expect(Vault.open(b, { stateDir: path.join(root, 'sb'), format2: false })).rejects.toThrow(/Update Mnemo/);
  const nb = await open(b, 'sb', true);
  expect(await text(nb, '/memories/from-a.md')).toBe('A after updating');
  expect(await text(nb, '/memories/from-b.md')).toBe('B on the old build');
  expect(await nb.verify()).toMatchObject({ ok: true });
});

it('the same file edited on A after the upgrade and on B by the old build: neither text is lost', async () => {
  const va = await open(a, 'sa', true);
  await va.memory.writeFile('/memories/a.md', 'alpha edited on A', { mode: 'update', source: 'user' });
  const vb = await open(b, 'sb', false);
  await vb.memory.writeFile('/memories/a.md', 'alpha edited on B', { mode: 'update', source: 'user' });
  await vb.close();
  await va.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  const shown = await text(v, '/memories/a.md');
  const kept = [shown, ...(await Promise.all(v.history('/memories/a.md').map((h) => v.readVersion('/memories/a.md', h.version))))];
  for (const c of v.conflicts()) kept.push(JSON.stringify(c));
  expect(kept.join('\n')).toContain('alpha edited on A');
  expect(kept.join('\n')).toContain('alpha edited on B');
  expect(await v.verify()).toMatchObject({ ok: true });
});

it('B (old build) deletes a value, empties the trash and renames after A upgraded and checkpointed: nothing comes back damaged on A', async () => {
  const pre = await open(a, 'sa', false);
  await pre.internal.putJSON('conversations/c1', { title: 'a chat' });
  await pre.memory.remove('/memories/b.md', 'user');
  await pre.close();
  await mirrorV1(a, b);
  const va = await open(a, 'sa', true);
  await va.memory.writeFile('/memories/from-a.md', 'A after updating', { mode: 'create', source: 'user' });
  await va.close();
  const vb = await open(b, 'sb', false);
  await vb.internal.delete('conversations/c1');
  await vb.emptyTrash();
  await vb.memory.rename('/memories/a.md', '/memories/renamed.md', 'user');
  await vb.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  expect(await v.internal.getJSON('conversations/c1')).toBeUndefined();
  expect(v.trash().map((t) => t.path)).toEqual([]);
  expect(await text(v, '/memories/renamed.md')).toBe('alpha');
  expect(await text(v, '/memories/from-a.md')).toBe('A after updating');
  expect(await v.verify()).toMatchObject({ ok: true });
});

it('both computers upgrade the synced v1 vault offline at once (A by a passphrase change, B by a settings save and a write), then carried both ways: both read everything under the new passphrase', async () => {
  const NEW = 'a new passphrase chosen on A';
  const va = await open(a, 'sa', true);
  const vb = await open(b, 'sb', true);
  await va.changePassphrase(PASS, NEW);
  await va.memory.writeFile('/memories/from-a.md', 'A', { mode: 'create', source: 'user' });
  await vb.internal.putJSON('settings', { theme: 'light' });
  await vb.memory.writeFile('/memories/from-b.md', 'B', { mode: 'create', source: 'user' });
  await va.close();
  await vb.close();
  // vault.json: the engine keeps one as vault.json and the other as a conflict copy (both version 2).
  const hb = await fs.readFile(path.join(b, 'vault.json'));
  await carry(a, b);
  await carry(b, a);
  await fs.writeFile(path.join(a, 'vault.sync-conflict-20261127-120000-BBBBBBB.json'), hb);
  await fs.copyFile(path.join(a, 'vault.json'), path.join(b, 'vault.json'));
  await fs.writeFile(path.join(b, 'vault.sync-conflict-20261127-120000-BBBBBBB.json'), hb);
  for (const [dir, st] of [[a, 'sa'], [b, 'sb']] as const) {
    const v = await Vault.open(dir, { stateDir: path.join(root, st), format2: true, ackDelayMs: 0 });
    opened.push(v);
    await v.unlock(NEW);
    expect(await text(v, '/memories/from-a.md')).toBe('A');
    expect(await text(v, '/memories/from-b.md')).toBe('B');
    expect(await text(v, '/memories/a.md')).toBe('alpha');
    expect(await v.internal.getJSON('settings')).toEqual({ theme: 'light' });
    expect(await v.verify()).toMatchObject({ ok: true });
    await v.close();
  }
});

it('a conversation: A adds a turn after the upgrade, B (old build) adds one and saves its head: A reads the conversation whole, with both turns', async () => {
  const ID = '00000000000000c1';
  const pre = await open(a, 'sa', false);
  const now = Date.now();
  await new Conversations(pre).save({ id: ID, title: 'Shared', created: now, updated: now, messages: [], transcript: [] });
  await new Conversations(pre).update(ID, turn('before'));
  await pre.close();
  await mirrorV1(a, b);
  const va = await open(a, 'sa', true);
  await new Conversations(va).update(ID, turn('A after updating'));
  await va.close();
  const vb = await open(b, 'sb', false);
  await new Conversations(vb).update(ID, turn('B on the old build'));
  await vb.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  const c = await new Conversations(v).get(ID);
  expect(new Set(said(c))).toEqual(new Set(['before', 'A after updating', 'B on the old build']));
  expect(c?.messages).toHaveLength(6);
  expect(await v.verify()).toMatchObject({ ok: true });
});

it('B (old build) rotates the keys of the synced v1 vault while A, unlocked on the new build, has not written yet: A’s first write is refused, and unlocked again it upgrades with nothing left waiting', async () => {
  const va = await open(a, 'sa', true);
  const vb = await open(b, 'sb', false);
  const key = await vb.rotateKeys(PASS);
  await vb.memory.writeFile('/memories/from-b.md', 'B after rotating', { mode: 'create', source: 'user' });
  await vb.close();
  await mirrorV1(b, a);
  await fs.copyFile(path.join(b, 'vault.json'), path.join(a, 'vault.json'));
  await expect(va.memory.writeFile('/memories/from-a.md', 'A', { mode: 'create', source: 'user' })).rejects.toThrow();
  await va.close();
  const v = await Vault.open(a, { stateDir: path.join(root, 'sa'), format2: true, ackDelayMs: 0 });
  opened.push(v);
  await v.unlock(PASS);
  await v.memory.writeFile('/memories/from-a.md', 'A', { mode: 'create', source: 'user' });
  expect(await text(v, '/memories/from-b.md')).toBe('B after rotating');
  expect(await text(v, '/memories/a.md')).toBe('alpha');
  expect(await v.verify()).toEqual({ ok: true, problems: [] });
  await v.close();
  // (Before: the refused write had left its upgrade record under the old keys, and every verify after said this
  // computer's files went back, for good.)
  const again = await Vault.open(a, { stateDir: path.join(root, 'sa'), format2: true, ackDelayMs: 0 });
  opened.push(again);
  await again.unlock(PASS);
  expect(await again.verify()).toEqual({ ok: true, problems: [] });
  await again.close();
  // B updates: the new build on B reads A's write with B's new recovery key.
  await carry(a, b);
  const nb = await Vault.open(b, { stateDir: path.join(root, 'sb'), format2: true, ackDelayMs: 0 });
  opened.push(nb);
  await nb.unlockWithRecoveryKey(key);
  expect(await text(nb, '/memories/from-a.md')).toBe('A');
  expect(await nb.verify()).toEqual({ ok: true, problems: [] });
});

for (const bMain of [true, false]) {
  it(`A upgrades while B (old build) changes the passphrase and writes; the engine names ${bMain ? 'B’s' : 'A’s'} vault.json the main one: the new passphrase opens everything on both, and B’s old build is then refused`, async () => {
    const NEW = 'the passphrase B set on the old build';
    const va = await open(a, 'sa', true);
    await va.memory.writeFile('/memories/from-a.md', 'A after updating', { mode: 'create', source: 'user' });
    await va.close();
    const vb = await open(b, 'sb', false);
    await vb.changePassphrase(PASS, NEW);
    await vb.memory.writeFile('/memories/from-b.md', 'B on the old build', { mode: 'create', source: 'user' });
    await vb.close();
    const [ha, hb] = [await fs.readFile(path.join(a, 'vault.json')), await fs.readFile(path.join(b, 'vault.json'))];
    await mirrorV1(b, a);
    await carry(a, b);
    for (const d of [a, b]) {
      await fs.writeFile(path.join(d, 'vault.json'), bMain ? hb : ha);
      await fs.writeFile(path.join(d, 'vault.sync-conflict-20261127-120000-ABCDEFG.json'), bMain ? ha : hb);
    }
    const v = await Vault.open(a, { stateDir: path.join(root, 'sa'), format2: true, ackDelayMs: 0 });
    opened.push(v);
    await v.unlock(NEW);
    expect(await text(v, '/memories/from-a.md')).toBe('A after updating');
    expect(await text(v, '/memories/from-b.md')).toBe('B on the old build');
    await v.memory.writeFile('/memories/again.md', 'A again', { mode: 'create', source: 'user' });
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    await v.close();
    // The old passphrase no longer opens it anywhere.
    const o = await Vault.open(a, { stateDir: path.join(root, 'sc'), format2: true });
    opened.push(o);
    await expect(o.unlock(PASS)).rejects.toThrow();
    for (const f of await fs.readdir(b)) if (f.startsWith('vault')) await fs.rm(path.join(b, f));
    await fs.copyFile(path.join(a, 'vault.json'), path.join(b, 'vault.json'));
    await carry(a, b);
    await expect(Vault.open(b, { stateDir: path.join(root, 'sb'), format2: false })).rejects.toThrow(/Update Mnemo/);
    const nb = await Vault.open(b, { stateDir: path.join(root, 'sb'), format2: true, ackDelayMs: 0 });
    opened.push(nb);
    await nb.unlock(NEW);
    for (const p of ['/memories/from-a.md', '/memories/from-b.md', '/memories/again.md']) expect(await text(nb, p), p).toBeDefined();
    expect(await nb.verify()).toEqual({ ok: true, problems: [] });
  });
}

// Not fixed: A's edit stays and reads, but the version it built on (written before the upgrade) is still listed as its
// history, and B's old build removed its bytes when it emptied its trash: that history entry reads as damaged and every
// verify on A fails for good. Marking such versions purged from the v1 files a computer holds would be wrong while those
// files are still arriving (a purge reaches every computer: history, even a current text, hidden everywhere).
it.fails('A edits a file after the upgrade while B (old build) deletes it and empties the trash: A’s edit stays, readable, and verify passes', async () => {
  const va = await open(a, 'sa', true);
  await va.memory.writeFile('/memories/a.md', 'alpha edited on A', { mode: 'update', source: 'user' });
  await va.close();
  const vb = await open(b, 'sb', false);
  await vb.memory.remove('/memories/a.md', 'user');
  await vb.emptyTrash();
  await vb.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  expect(await text(v, '/memories/a.md')).toBe('alpha edited on A');
  // The version B emptied from its trash is gone with its bytes: not history that reads as damaged for good.
  expect(v.history('/memories/a.md')).toEqual([]);
  expect(await v.verify()).toEqual({ ok: true, problems: [] });
});

it('a third computer whose copy of the v1 files is older than what A’s checkpoint saw (still arriving): once they are there it reads B’s later value, and nothing is lost', async () => {
  const c = path.join(root, 'vc');
  await fs.cp(b, c, { recursive: true });
  const vb = await open(b, 'sb', false);
  await vb.internal.putJSON('settings', { theme: 'light' });
  await vb.close();
  await mirrorV1(b, a);
  const va = await open(a, 'sa', true);
  await va.memory.writeFile('/memories/from-a.md', 'A', { mode: 'create', source: 'user' });
  await va.close();
  await carry(a, c);
  await fs.copyFile(path.join(a, 'vault.json'), path.join(c, 'vault.json'));
  // Meanwhile it reads the v1 part as its own copy has it (B's value not here yet); it writes there too.
  const early = await open(c, 'sc', true);
  await early.memory.writeFile('/memories/from-c.md', 'C', { mode: 'create', source: 'user' });
  await early.close();
  await mirrorV1(b, c);
  const later = await open(c, 'sc', true);
  expect(await later.internal.getJSON('settings')).toEqual({ theme: 'light' });
  expect(await text(later, '/memories/from-a.md')).toBe('A');
  expect(await text(later, '/memories/from-c.md')).toBe('C');
  expect(await later.verify()).toEqual({ ok: true, problems: [] });
});

// Not fixed: B's turn is lost on A. A's delete (scheme 2) saw the single-writer log at one record and removed it; B's
// old build appended a second record and a single-writer head. The merge (merge-rules.ts conversationRule) counts only
// the per-computer logs for "added something the delete had not seen", and the single-writer log cannot be read from
// past the records the delete removed (there is no floor for it), so the delete stands and B's turn is not shown.
it.fails('a conversation deleted on A after the upgrade while B (old build) adds a turn to it: B’s turn is not lost', async () => {
  const ID = '00000000000000c2';
  const pre = await open(a, 'sa', false);
  const now = Date.now();
  await new Conversations(pre).save({ id: ID, title: 'Shared', created: now, updated: now, messages: [], transcript: [] });
  await new Conversations(pre).update(ID, turn('before'));
  await pre.close();
  await mirrorV1(a, b);
  const va = await open(a, 'sa', true);
  await new Conversations(va).delete(ID);
  await va.close();
  const vb = await open(b, 'sb', false);
  await new Conversations(vb).update(ID, turn('B on the old build'));
  await vb.close();
  await mirrorV1(b, a);
  const v = await open(a, 'sa', true);
  expect(said(await new Conversations(v).get(ID))).toContain('B on the old build');
  expect(await v.verify()).toMatchObject({ ok: true });
});
