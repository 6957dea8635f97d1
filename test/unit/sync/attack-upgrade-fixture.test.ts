/**
 * Attacks on the upgrade of the real old vault (test/fixtures/vault-v1: a
 * header from before MACs) by the new build's first change, when that first
 * change is not a memory write: a passphrase change, a new recovery key.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseHeader, serializeHeader } from '../../../electron/core/vault/header';
import { Vault } from '../../../electron/core/vault/vault';
import { FIXTURE } from '../../fixtures/vault-v1-contents';

const NEW_PASS = 'a new passphrase set after updating';
let root: string;
let dir: string;
let state: string;
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-upgrade-fx-'));
  dir = path.join(root, 'vault');
  state = path.join(root, 'state');
  await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

async function open(pass: string, o: { format2?: boolean } = {}): Promise<Vault> {
  const v = await Vault.open(dir, { stateDir: state, format2: o.format2 ?? true, ackDelayMs: 0 });
  opened.push(v);
  await v.unlock(pass);
  return v;
}

const header = async () => JSON.parse(await fs.readFile(path.join(dir, 'vault.json'), 'utf8')) as Record<string, unknown>;
/** vault.json written again as it is, its MAC left out (canonical, with its check hash: as an attacker can). */
const stripMac = async () => {
  const { mac: _mac, ...rest } = parseHeader(await fs.readFile(path.join(dir, 'vault.json')), 2);
  await fs.writeFile(path.join(dir, 'vault.json'), serializeHeader(rest));
};

// Format 1 gave a MAC-less header its MAC at unlock together with the mark `vault/header-mac`, so a MAC stripped later
// is refused. Format 2 leaves the v1 vault unwritten at unlock and gives the MAC (and the mark) with the upgrade, but
// only when the header has no MAC yet. A passphrase change as the first change writes vault.json with a MAC (still
// version 1) and no mark; the upgrade then sees a MAC and writes no mark either: from then on a stripped MAC passes.
it('a passphrase change as the first change of a MAC-less v1 vault, then a write: a MAC stripped later is still refused', async () => {
  const v = await open(FIXTURE.passphrase);
  await v.changePassphrase(FIXTURE.passphrase, NEW_PASS);
  await v.memory.writeFile('/memories/after.md', 'after the update', { mode: 'create', source: 'user' });
  expect((await header()).version).toBe(2);
  expect(await v.verify()).toEqual({ ok: true, problems: [] });
  await v.close();
  await stripMac();
  // On this computer and on another one (a state folder that never saw the MAC: the mark in the vault must tell).
  for (const st of [state, path.join(root, 'other-computer')]) {
    const w = await Vault.open(dir, { stateDir: st, format2: true, ackDelayMs: 0 });
    opened.push(w);
    await expect(w.unlock(NEW_PASS)).rejects.toThrow(/modified/i);
  }
});

it('the same on a vault first opened by the old build after the passphrase change: a stripped MAC is refused there too', async () => {
  const v = await open(FIXTURE.passphrase);
  await v.changePassphrase(FIXTURE.passphrase, NEW_PASS);
  await v.close();
  await stripMac();
  // Left at format 1 with a MAC and no mark, the old build on another computer could not tell: it is refused either
  // way (the change upgraded the vault, or the mark tells), and so is the new build there.
  for (const format2 of [false, true]) {
    const open = async () => {
      const w = await Vault.open(dir, { stateDir: path.join(root, `other-computer-${format2}`), format2 });
      opened.push(w);
      await w.unlock(NEW_PASS);
    };
    await expect(open()).rejects.toThrow(/modified|Update Mnemo/i);
  }
});

it('a new recovery key as the first change of the fixture: everything reads with the new key and the old passphrase, with the new build and (refused clearly) not the old one', async () => {
  const v = await open(FIXTURE.passphrase);
  const key = await v.newRecoveryKey(FIXTURE.passphrase);
  await v.close();
  const w = await Vault.open(dir, { stateDir: path.join(root, 'state-2'), format2: true });
  opened.push(w);
  await w.unlockWithRecoveryKey(key);
  expect(await w.memory.readFile('/memories/journal-only.md')).toBe(FIXTURE.journalOnly);
  for (const [p, versions] of Object.entries(FIXTURE.history)) {
    expect(await w.memory.readFile(p)).toBe(versions.at(-1));
    for (let i = 0; i < versions.length - 1; i++) expect(await w.readVersion(p, i + 1)).toBe(versions[i]);
  }
  expect(await w.readVersion('/memories/deleted.md', 1)).toBe('gone');
  expect(await w.internal.getJSON('settings')).toEqual(FIXTURE.settings);
  expect(await w.verify()).toEqual({ ok: true, problems: [] });
  await w.close();
  await expect(Vault.open(dir, { stateDir: state, format2: false })).rejects.toThrow(/Update Mnemo/);
});

// Every format-2 vault.json is written with a MAC (the upgrade gives one to a header from before MACs). A MAC-less
// header that says version 2 is a v1 header edited: taken as upgraded, the first write skipped the upgrade and with it
// the MAC and the mark, so the vault stayed without header authentication for good.
it('a MAC-less v1 vault.json edited to say version 2: refused as modified, or given its MAC and mark by the first write', async () => {
  const h = parseHeader(await fs.readFile(path.join(dir, 'vault.json')), 2);
  await fs.writeFile(path.join(dir, 'vault.json'), serializeHeader({ ...h, version: 2 }));
  let v: Vault;
  try {
    v = await open(FIXTURE.passphrase);
  } catch (e) {
    expect(String(e)).toMatch(/modified/i);
    return;
  }
  await v.memory.writeFile('/memories/after.md', 'after the update', { mode: 'create', source: 'user' });
  await v.close();
  expect((await header()).mac).toBeDefined();
  await stripMac();
  const w = await Vault.open(dir, { stateDir: path.join(root, 'other-computer'), format2: true });
  opened.push(w);
  await expect(w.unlock(FIXTURE.passphrase)).rejects.toThrow(/modified/i);
});
