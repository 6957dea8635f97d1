import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { FIXTURE } from '../../fixtures/vault-v1-contents';

/** The vault committed in test/fixtures/vault-v1 was written by the first v1 build; every later build must open it. */
let root: string;
let dir: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-v1-'));
  dir = path.join(root, 'vault');
  await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

it('the frozen v1 vault opens with its passphrase and holds exactly what was written', async () => {
  const vault = await Vault.open(dir, { stateDir: path.join(root, 'state') });
  expect(await vault.unlock(FIXTURE.passphrase)).toEqual({ rolledBack: false, damaged: [] });
  const files = vault.memory.list('/memories', Infinity).map((e) => `${e.kind} ${e.path}`);
  expect(files).toEqual([
    'dir /memories/empty-folder',
    'file /memories/journal-only.md',
    'dir /memories/projects',
    'file /memories/projects/renamed.md',
    'dir /memories/user',
    'file /memories/user/preferences.md',
    'dir /memories/ünïcode',
    'file /memories/ünïcode/naïve café.md',
  ]);
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
  await vault.close();
});

it('the frozen v1 vault opens with its recovery key', async () => {
  const vault = await Vault.open(dir, { stateDir: path.join(root, 'state') });
  await vault.unlockWithRecoveryKey(FIXTURE.recoveryKey);
  expect(await vault.memory.readFile('/memories/user/preferences.md')).toBe(FIXTURE.history['/memories/user/preferences.md']!.at(-1));
  vault.lock();
  await vault.close();
});
