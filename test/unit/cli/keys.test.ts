import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHeader, serializeHeader, VERSION_2 } from '../../../electron/core/vault/header';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { Vault } from '../../../electron/core/vault/vault';
import { initVault, memoryLines, mnemo, PASS } from './helpers';

const NEW_PASS = 'a brand new passphrase';

async function keyFile(root: string, key: string): Promise<string> {
  const file = path.join(root, `key-${Math.random().toString(36).slice(2)}.txt`);
  await fs.writeFile(file, key + '\n');
  return file;
}

/** A vault whose folder was replaced by an older copy after more was written. */
async function rolledBackVault() {
  // Format 1: its rollback alarm (format 2 says, as a notice, that this computer's own files are older, and goes on).
  const v = await initVault({ MNEMO_FORMAT: '1' });
  const write = (p: string, text: string) => mnemo(['memory', '--vault', v.vault], { env: v.env, stdin: memoryLines({ command: 'create', path: p, file_text: text }) });
  expect((await write('/memories/a.md', 'one')).code).toBe(0);
  const copy = path.join(v.root, 'copy');
  await fs.cp(v.vault, copy, { recursive: true });
  expect((await write('/memories/b.md', 'two')).code).toBe(0);
  await fs.rm(v.vault, { recursive: true });
  await fs.cp(copy, v.vault, { recursive: true });
  return v;
}

describe('a rolled-back vault on the command line', () => {
  it('verify exits 4 every time, ls and cat exit 4, until accept-rollback (with the passphrase)', async () => {
    const v = await rolledBackVault();
    for (let i = 0; i < 2; i++) {
      const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
      expect(res.code).toBe(4);
      expect(res.stdout).toMatch(/rolled back/);
    }
    for (const args of [['ls'], ['cat', '/memories/a.md']]) {
      const res = await mnemo([...args, '--vault', v.vault], { env: v.env });
      expect(res.code).toBe(4);
      expect(res.stderr).toMatch(/rolled back/);
      expect(res.stdout).toBe('');
    }
    expect((await mnemo(['accept-rollback', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: 'wrong one' } })).code).toBe(3);
    expect((await mnemo(['verify', '--vault', v.vault], { env: v.env })).code).toBe(4);
    const ok = await mnemo(['accept-rollback', '--vault', v.vault], { env: v.env });
    expect(ok.code).toBe(0);
    expect((await mnemo(['verify', '--vault', v.vault], { env: v.env })).code).toBe(0);
    expect(await mnemo(['cat', '/memories/a.md', '--vault', v.vault], { env: v.env })).toMatchObject({ code: 0, stdout: 'one' });
  });

  it('mnemo memory answers every command with an error saying the vault was rolled back', async () => {
    const v = await rolledBackVault();
    const res = await mnemo(['memory', '--vault', v.vault], {
      env: v.env,
      stdin: memoryLines({ command: 'view', path: '/memories' }, { command: 'create', path: '/memories/c.md', file_text: 'x' }),
    });
    const out = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { content: string; is_error: boolean });
    expect(out).toHaveLength(2);
    for (const o of out) {
      expect(o.is_error).toBe(true);
      expect(o.content).toMatch(/rolled back/);
    }
  });
});

describe('a modified header on the command line', () => {
  it('a removed recovery slot is reported as a modified header (exit 4), not as a wrong passphrase', async () => {
    await cryptoReady();
    const v = await initVault();
    const file = path.join(v.vault, 'vault.json');
    // Read as either format's header (version 2: format 2's).
    const h = parseHeader(new Uint8Array(await fs.readFile(file)), VERSION_2);
    await fs.writeFile(file, serializeHeader({ ...h, slots: h.slots.filter((s) => s.type !== 'recovery') }));
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/header was modified/);
  });
});

describe('the recovery key on the command line', () => {
  it('--recovery-key-file opens the vault in place of the passphrase', async () => {
    const v = await initVault();
    const env = { ...v.env, MNEMO_PASSPHRASE: '' };
    const res = await mnemo(['ls', '--vault', v.vault, '--recovery-key-file', await keyFile(v.root, v.recoveryKey)], { env });
    expect(res.code).toBe(0);
  });

  it('passwd --recovery-key-file sets a new passphrase without the old one', async () => {
    const v = await initVault();
    const env = { ...v.env, MNEMO_PASSPHRASE: '', MNEMO_NEW_PASSPHRASE: NEW_PASS };
    const res = await mnemo(['passwd', '--vault', v.vault, '--recovery-key-file', await keyFile(v.root, v.recoveryKey)], { env });
    expect(res.code).toBe(0);
    expect((await mnemo(['ls', '--vault', v.vault], { env: v.env })).code).toBe(3);
    expect((await mnemo(['ls', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: NEW_PASS } })).code).toBe(0);
  });

  it('a recovery key with a typo exits 3 and says it has a typo', async () => {
    const v = await initVault();
    const typo = (v.recoveryKey[0] === 'A' ? 'B' : 'A') + v.recoveryKey.slice(1);
    const res = await mnemo(['ls', '--vault', v.vault, '--recovery-key-file', await keyFile(v.root, typo)], { env: { ...v.env, MNEMO_PASSPHRASE: '' } });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/typo/);
  });

  it('recovery-key prints a new key once; the old one stops opening the vault', async () => {
    const v = await initVault();
    const res = await mnemo(['recovery-key', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(0);
    const fresh = res.stdout.trim();
    expect(fresh).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4})+$/);
    expect(fresh).not.toBe(v.recoveryKey);
    const env = { ...v.env, MNEMO_PASSPHRASE: '' };
    expect((await mnemo(['ls', '--vault', v.vault, '--recovery-key-file', await keyFile(v.root, v.recoveryKey)], { env })).code).toBe(3);
    expect((await mnemo(['ls', '--vault', v.vault, '--recovery-key-file', await keyFile(v.root, fresh)], { env })).code).toBe(0);
  });

  it('rotate needs the passphrase and prints the new recovery key once', async () => {
    const v = await initVault();
    expect((await mnemo(['rotate', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: 'wrong one' } })).code).toBe(3);
    const res = await mnemo(['rotate', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4})+$/);
    expect(res.stdout.trim()).not.toBe(v.recoveryKey);
    expect((await mnemo(['ls', '--vault', v.vault], { env: v.env })).code).toBe(0);
  });
});

describe('passwd and the KDF cost', () => {
  it('passwd --kdf-ops/--kdf-mem re-derives the passphrase at the new cost', async () => {
    await cryptoReady();
    const v = await initVault();
    const res = await mnemo(['passwd', '--vault', v.vault, '--kdf-ops', '3', '--kdf-mem', '64'], { env: { ...v.env, MNEMO_NEW_PASSPHRASE: NEW_PASS } });
    expect(res.code).toBe(0);
    const h = parseHeader(new Uint8Array(await fs.readFile(path.join(v.vault, 'vault.json'))), VERSION_2);
    expect(h.slots.find((s) => s.type === 'passphrase')).toMatchObject({ kdf: { opslimit: 3, memlimit: 64 * 1024 * 1024 } });
    expect((await mnemo(['ls', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: NEW_PASS } })).code).toBe(0);
  });
});

describe('a vault open elsewhere', () => {
  it('is refused with the in-use message and exit 1 while another holder has it, and opens once it is closed', async () => {
    const v = await initVault();
    // The CLI's own state folder (XDG_STATE_HOME/mnemo): format 2's lock is there (one state folder is one computer;
    // format 1's is in the vault folder).
    const holder = await Vault.open(v.vault, { stateDir: path.join(v.root, 'state', 'mnemo') });
    const res = await mnemo(['ls', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/open in another Mnemo window or mnemo command/);
    await holder.close();
    expect((await mnemo(['ls', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: PASS } })).code).toBe(0);
  });
});
