import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { parseHeader, serializeHeader, type Header } from '../../../electron/core/vault/header';
import { VaultError } from '../../../electron/core/vault/types';
import { PASS, pinFormat1, tempVault, type TempVault } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const failure = async (p: Promise<unknown>): Promise<VaultError | undefined> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof VaultError) return e;
    throw e;
  }
  return undefined;
};

async function editHeader(dir: string, edit: (h: Header) => Header): Promise<void> {
  const file = path.join(dir, 'vault.json');
  const h = parseHeader(new Uint8Array(await fs.readFile(file)));
  // serializeHeader recomputes the checksum, as anyone editing the file could.
  await fs.writeFile(file, serializeHeader(edit(h)));
}

describe('the header is authenticated', () => {
  it('removing the recovery slot (checksum recomputed) is reported as a modified header, not a wrong passphrase', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.close();
    await editHeader(t.dir, (h) => ({ ...h, slots: h.slots.filter((s) => s.type !== 'recovery') }));
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    const err = await failure(t.vault.unlock(PASS));
    expect(err?.code).toBe('DAMAGED');
    expect(err?.message).toMatch(/header was modified/);
  });

  it('the same removal is caught on a device that never opened the vault (MAC checked after unlock)', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.close();
    await editHeader(t.dir, (h) => ({ ...h, slots: h.slots.filter((s) => s.type !== 'recovery') }));
    t.vault = await Vault.open(t.dir, { stateDir: path.join(t.root, 'fresh-device') });
    expect((await failure(t.vault.unlock(PASS)))?.code).toBe('DAMAGED');
  });

  it('a KDF cost raised behind this device’s back is refused as modified before any slow derivation', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    // Counted by test/unit/fast-kdf.ts: the stand-in for Argon2id is quick, so the time a derivation takes cannot show it ran.
    const derived = () => (globalThis as { mnemoDerivations?: number }).mnemoDerivations ?? 0;
    t = await tempVault();
    const first = derived();
    await t.reopen();
    expect(derived()).toBeGreaterThan(first);
    await t.vault.close();
    await editHeader(t.dir, (h) => ({
      ...h,
      slots: h.slots.map((s) => (s.type === 'passphrase' ? { ...s, kdf: { ...s.kdf, opslimit: 10, memlimit: 1024 * 1024 * 1024 } } : s)),
    }));
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    const before = derived();
    const err = await failure(t.vault.unlock(PASS));
    expect(err?.code).toBe('DAMAGED');
    expect(err?.message).toMatch(/header was modified/);
    expect(derived()).toBe(before);
  });

  it('any other edit of a key slot (its salt) is refused as modified, not as a wrong passphrase', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.close();
    await editHeader(t.dir, (h) => ({
      ...h,
      slots: h.slots.map((s) => (s.type === 'passphrase' ? { ...s, kdf: { ...s.kdf, salt: 'AAAAAAAAAAAAAAAAAAAAAA==' } } : s)),
    }));
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    const err = await failure(t.vault.unlock(PASS));
    expect(err?.code).toBe('DAMAGED');
    expect(err?.message).toMatch(/header was modified/);
  });

  it('a new recovery key revokes the old one, even if the old slot is spliced back or an old vault.json is restored', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
    const oldHeader = await fs.readFile(path.join(t.dir, 'vault.json'));
    const oldSlot = parseHeader(new Uint8Array(oldHeader)).slots.find((s) => s.type === 'recovery')!;
    expect((await failure(t.vault.newRecoveryKey('wrong passphrase')))?.code).toBe('BAD_PASSPHRASE');
    const fresh = await t.vault.newRecoveryKey(PASS);
    expect(fresh).not.toBe(t.recoveryKey);
    await t.vault.close();

    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect((await failure(t.vault.unlockWithRecoveryKey(t.recoveryKey)))?.code).toBeDefined();
    await t.vault.unlockWithRecoveryKey(fresh);
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('alpha');
    await t.vault.close();

    await editHeader(t.dir, (h) => ({ ...h, slots: [...h.slots.filter((s) => s.type !== 'recovery'), oldSlot] }));
    for (const stateDir of [t.stateDir, path.join(t.root, 'other-device')]) {
      const v = await Vault.open(t.dir, { stateDir });
      expect(await failure(v.unlockWithRecoveryKey(t.recoveryKey))).toBeInstanceOf(VaultError);
      expect(v.isUnlocked()).toBe(false);
      await v.close();
    }
    await fs.writeFile(path.join(t.dir, 'vault.json'), oldHeader);
    for (const stateDir of [t.stateDir, path.join(t.root, 'third-device')]) {
      const v = await Vault.open(t.dir, { stateDir });
      expect(await failure(v.unlockWithRecoveryKey(t.recoveryKey))).toBeInstanceOf(VaultError);
      expect(v.isUnlocked()).toBe(false);
      await v.close();
    }
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
  });

  it('verifyPassphrase accepts the passphrase and refuses another one with BAD_PASSPHRASE', async () => {
    t = await tempVault();
    await t.vault.verifyPassphrase(PASS);
    expect((await failure(t.vault.verifyPassphrase('nope nope')))?.code).toBe('BAD_PASSPHRASE');
  });
});

describe('the recovery key', () => {
  it('after a recovery-key unlock a new passphrase can be set without the old one', async () => {
    t = await tempVault();
    t.vault.lock();
    await t.vault.unlockWithRecoveryKey(t.recoveryKey);
    await t.vault.setPassphrase('a brand new passphrase');
    t.vault.lock();
    expect((await failure(t.vault.unlock(PASS)))?.code).toBe('BAD_PASSPHRASE');
    await t.vault.unlock('a brand new passphrase');
  });

  it('setting a passphrase without the old one is refused after a passphrase unlock', async () => {
    t = await tempVault();
    t.vault.lock();
    await t.vault.unlock(PASS);
    expect((await failure(t.vault.setPassphrase('a brand new passphrase')))?.code).toBe('INVALID');
  });

  it('changing the passphrase can raise the KDF cost', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.changePassphrase(PASS, 'next passphrase', { opslimit: 3, memlimit: 64 * 1024 * 1024 });
    await t.vault.close();
    const h = parseHeader(new Uint8Array(await fs.readFile(path.join(t.dir, 'vault.json'))));
    expect(h.slots.find((s) => s.type === 'passphrase')).toMatchObject({ kdf: { opslimit: 3 } });
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock('next passphrase');
  });

  it('a typo in a recovery key is reported as a typo, not as a key that does not open the vault', async () => {
    t = await tempVault();
    t.vault.lock();
    const groups = t.recoveryKey.split('-');
    const first = groups[0]!;
    groups[0] = (first[0] === 'A' ? 'B' : 'A') + first.slice(1);
    const err = await failure(t.vault.unlockWithRecoveryKey(groups.join('-')));
    expect(err?.code).toBe('INVALID');
    expect(err?.message).toMatch(/typo/);
  });
});

describe('a rollback stays reported', () => {
  it('is reported at every unlock until accepted, and acceptRollback ends it', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'user' });
    await t.vault.close();
    const copy = path.join(t.root, 'copy');
    await fs.cp(t.dir, copy, { recursive: true });
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock(PASS);
    await t.vault.memory.writeFile('/memories/a.md', 'two', { mode: 'update', source: 'user' });
    await t.vault.memory.writeFile('/memories/b.md', 'three', { mode: 'create', source: 'user' });
    await t.vault.close();
    await fs.rm(t.dir, { recursive: true });
    await fs.cp(copy, t.dir, { recursive: true });
    for (let i = 0; i < 3; i++) {
      t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
      expect((await t.vault.unlock(PASS)).rolledBack).toBe(true);
      expect((await t.vault.verify()).ok).toBe(false);
      await t.vault.close();
    }
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock(PASS);
    await t.vault.acceptRollback();
    await t.vault.close();
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect((await t.vault.unlock(PASS)).rolledBack).toBe(false);
    expect((await t.vault.verify()).ok).toBe(true);
  });
});

describe('a restored backup', () => {
  it('made before a passphrase change opens with the old passphrase as a rollback (not as a modified header) until accepted', async () => {
    t = await tempVault();
    await t.vault.memory.writeFile('/memories/a.md', 'one', { mode: 'create', source: 'user' });
    await t.vault.close();
    const copy = path.join(t.root, 'backup');
    await fs.cp(t.dir, copy, { recursive: true });
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock(PASS);
    await t.vault.changePassphrase(PASS, 'the newer passphrase');
    await t.vault.memory.writeFile('/memories/b.md', 'two', { mode: 'create', source: 'user' });
    await t.vault.close();
    await fs.rm(t.dir, { recursive: true });
    await fs.cp(copy, t.dir, { recursive: true });
    for (let i = 0; i < 2; i++) {
      t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
      expect((await t.vault.unlock(PASS)).rolledBack).toBe(true);
      await t.vault.close();
    }
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    await t.vault.unlock(PASS);
    await t.vault.acceptRollback();
    await t.vault.close();
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect((await t.vault.unlock(PASS)).rolledBack).toBe(false);
    expect(await t.vault.memory.readFile('/memories/a.md')).toBe('one');
  });
});

describe('headers written before MACs', () => {
  it('the frozen v1 vault gets a MAC at its first unlock and opens again; stripping the MAC later is refused on any device', async () => {
    // Format 1: about the version-1 header (its MAC, slots, KDF fields, parsed as version 1); format 2's header has its own tests
    pinFormat1();
    const { FIXTURE } = await import('../../fixtures/vault-v1-contents');
    const root = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'mnemo-v1mac-'));
    const dir = path.join(root, 'vault');
    await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
    const original = await fs.readFile(path.join(dir, 'vault.json'));
    try {
      let v = await Vault.open(dir, { stateDir: path.join(root, 'state') });
      await v.unlock(FIXTURE.passphrase);
      await v.close();
      const h = parseHeader(new Uint8Array(await fs.readFile(path.join(dir, 'vault.json'))));
      expect(h.mac).toMatch(/^[0-9a-f]{64}$/);
      v = await Vault.open(dir, { stateDir: path.join(root, 'state') });
      await v.unlock(FIXTURE.passphrase);
      expect((await v.verify()).ok).toBe(true);
      await v.close();

      // The old MAC-less vault.json put back: refused here, and on a device that never saw the vault.
      await fs.writeFile(path.join(dir, 'vault.json'), original);
      for (const state of ['state', 'fresh-device']) {
        v = await Vault.open(dir, { stateDir: path.join(root, state) });
        const err = await failure(v.unlock(FIXTURE.passphrase));
        expect(err?.code).toBe('DAMAGED');
        await v.close();
      }
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
