/**
 * The committed v1 vault (test/fixtures/vault-v1) under the format-2 build:
 * pinned to format 1 (`format2: false`, MNEMO_FORMAT=1) it opens exactly as before (fixture.test.ts); by
 * default (format 2) it reads as the frozen pseudo-device L with everything v1 showed, its first
 * write upgrades it (vault.json at version 2, this computer's own folder),
 * and it still reads everything, also after reopening (docs/sync-design.md §8).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { FIXTURE } from '../../fixtures/vault-v1-contents';

let root: string;
let dir: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-v1-on-v2-'));
  dir = path.join(root, 'vault');
  await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const EXPECTED = [
  'dir /memories/empty-folder',
  'file /memories/journal-only.md',
  'dir /memories/projects',
  'file /memories/projects/renamed.md',
  'dir /memories/user',
  'file /memories/user/preferences.md',
  'dir /memories/ünïcode',
  'file /memories/ünïcode/naïve café.md',
];

async function expectFixture(vault: Vault, extra: string[] = []) {
  expect(vault.memory.list('/memories', Infinity).map((e) => `${e.kind} ${e.path}`)).toEqual([...EXPECTED, ...extra].sort((a, b) => (a.slice(a.indexOf(' ')) < b.slice(b.indexOf(' ')) ? -1 : 1)));
  for (const [p, versions] of Object.entries(FIXTURE.history)) {
    expect(await vault.memory.readFile(p)).toBe(versions.at(-1));
    expect(vault.history(p).map((h) => h.version)).toEqual(versions.slice(0, -1).map((_, i) => i + 1));
    for (let i = 0; i < versions.length - 1; i++) expect(await vault.readVersion(p, i + 1)).toBe(versions[i]);
  }
  expect(await vault.memory.readFile('/memories/projects/renamed.md')).toBe(FIXTURE.renamed);
  expect(await vault.memory.readFile('/memories/journal-only.md')).toBe(FIXTURE.journalOnly);
  expect(await vault.readVersion('/memories/deleted.md', 1)).toBe('gone');
  expect(await vault.internal.getJSON('settings')).toEqual(FIXTURE.settings);
  expect(await vault.verify()).toEqual({ ok: true, problems: [] });
}

const files = async () => (await fs.readdir(dir, { recursive: true })).sort();

it('pinned to format 1, the v1 vault opens and reads as v1 does', async () => {
  const vault = await Vault.open(dir, { stateDir: path.join(root, 'state'), format2: false });
  expect(await vault.unlock(FIXTURE.passphrase)).toEqual({ rolledBack: false, damaged: [] });
  await expectFixture(vault);
  await vault.close();
});

it('in format 2 (the default), the v1 vault reads unchanged, its first write upgrades it, and it reads everything after', async () => {
  const before = await files();
  const header = await fs.readFile(path.join(dir, 'vault.json'));
  const opts = { stateDir: path.join(root, 'state'), format2: true };
  const vault = await Vault.open(dir, opts);
  expect(await vault.unlock(FIXTURE.passphrase)).toEqual({ rolledBack: false, damaged: [] });
  await expectFixture(vault);
  // Reading wrote nothing into the vault folder but v1's lock (kept while it is format 1, so a v1 build stays out): no MAC upgrade, no device folder.
  expect((await files()).filter((f) => f !== '.lock' && f !== '.vault.lock')).toEqual(before);
  expect(await fs.readFile(path.join(dir, 'vault.json'))).toEqual(header);
  const history = vault.history('/memories/user/preferences.md');
  expect(history[0]).toMatchObject({ version: 1, device: 'L' });
  await vault.memory.writeFile('/memories/new.md', 'first format-2 write', { mode: 'create', source: 'user' });
  expect(JSON.parse(await fs.readFile(path.join(dir, 'vault.json'), 'utf8'))).toMatchObject({ version: 2 });
  expect((await files()).some((f) => f.startsWith('devices'))).toBe(true);
  // The v1 files are L now: never written again.
  for (const f of before.filter((x) => x !== 'vault.json')) expect(await files()).toContain(f);
  await expectFixture(vault, ['file /memories/new.md']);
  await vault.memory.writeFile('/memories/user/preferences.md', 'edited in format 2', { mode: 'update', source: 'user' });
  expect(vault.history('/memories/user/preferences.md').map((h) => h.version)).toEqual([1, 2]);
  await vault.close();
  const again = await Vault.open(dir, opts);
  await again.unlockWithRecoveryKey(FIXTURE.recoveryKey);
  expect(await again.memory.readFile('/memories/new.md')).toBe('first format-2 write');
  expect(await again.memory.readFile('/memories/user/preferences.md')).toBe('edited in format 2');
  expect(await again.readVersion('/memories/user/preferences.md', 2)).toBe(FIXTURE.history['/memories/user/preferences.md']!.at(-1));
  expect(await again.internal.getJSON('settings')).toEqual(FIXTURE.settings);
  expect(await again.verify()).toEqual({ ok: true, problems: [] });
  await again.close();
  // Pinned to format 1 (as a format-1 build is), the upgraded vault is refused, as any build refuses a newer format.
  await expect(Vault.open(dir, { ...opts, format2: false })).rejects.toMatchObject({ code: 'BAD_HEADER' });
});
