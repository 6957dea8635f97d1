/** The window's side of the recovery key and the rollback alarm: main decides, with the passphrase. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vaultDirIn } from '../../../electron/core/app-paths';
import { createMemoryHandlers } from '../../../electron/core/memory/handlers';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { pinFormat1 } from '../vault/helpers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'amber-kettle-orbit-sonnet-42';
const roots: string[] = [];
afterEach(async () => {
  for (const d of roots.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function root(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-rr-'));
  roots.push(dir);
  return dir;
}

/** A fresh main process on the same user data (as after a restart). */
function app(dir: string) {
  return createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
}

const ok = <T>(r: { ok: boolean; value?: unknown }): T => {
  expect(r.ok).toBe(true);
  return r.value as T;
};

describe('a new passphrase after a recovery-key unlock', () => {
  it('is refused in a session unlocked with the passphrase, refused when weak, and set after a recovery unlock', async () => {
    const dir = await root();
    const a = app(dir);
    const { recoveryKey } = ok<{ recoveryKey: string }>(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    // A page on a passphrase session cannot replace the passphrase without knowing it.
    expect(await dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'tundra-pylon-ginger-mosaic-83' }])).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    await dispatch(a.handlers, 'vaultLock', []);
    ok(await dispatch(a.handlers, 'vaultUnlockWithRecoveryKey', [{ recoveryKey }]));
    expect(await dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'Football2024!!' }])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/too weak/) } });
    ok(await dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'tundra-pylon-ginger-mosaic-83' }]));
    await dispatch(a.handlers, 'vaultLock', []);
    expect(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    ok(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: 'tundra-pylon-ginger-mosaic-83' }]));
    await a.session.close();
  });
});

describe('the rollback alarm in the app', () => {
  /** A vault restored from a copy older than what this device has seen. */
  async function rolledBackApp() {
    const dir = await root();
    const first = app(dir);
    ok(await dispatch(first.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(first.handlers, 'memoryWrite', [{ path: '/memories/old.md', text: 'old', mode: 'create' }]));
    await first.session.close();
    const copy = path.join(dir, 'copy');
    await fs.cp(vaultDirIn(dir), copy, { recursive: true });
    const second = app(dir);
    ok(await dispatch(second.handlers, 'vaultUnlock', [{ passphrase: PASS }]));
    ok(await dispatch(second.handlers, 'memoryWrite', [{ path: '/memories/new.md', text: 'new', mode: 'create' }]));
    await second.session.close();
    await fs.rm(vaultDirIn(dir), { recursive: true });
    await fs.cp(copy, vaultDirIn(dir), { recursive: true });
    return { dir, third: app(dir) };
  }

  it('stays up at every unlock, keeps memory from Claude, and only the passphrase holder can accept it', async () => {
    // Format 1: about the rollback alarm, which format 2 replaces by a notice (its own files older: it goes on as a new computer)
    pinFormat1();
    const { dir, third } = await rolledBackApp();
    expect(ok<{ rolledBack: boolean }>(await dispatch(third.handlers, 'vaultUnlock', [{ passphrase: PASS }])).rolledBack).toBe(true);
    expect(ok<{ rolledBack: boolean }>(await dispatch(third.handlers, 'vaultStatus', [])).rolledBack).toBe(true);

    const claude = createMemoryHandlers(third.session.unlocked(), { guardMode: () => 'allow', source: 'claude' });
    await expect(claude.view({ command: 'view', path: '/memories' })).rejects.toThrow(/rolled back/);
    await expect(claude.create({ command: 'create', path: '/memories/x.md', file_text: 'x' })).rejects.toThrow(/rolled back/);

    // Locking and unlocking again does not lower the alarm.
    await dispatch(third.handlers, 'vaultLock', []);
    expect(ok<{ rolledBack: boolean }>(await dispatch(third.handlers, 'vaultUnlock', [{ passphrase: PASS }])).rolledBack).toBe(true);

    expect(await dispatch(third.handlers, 'vaultAcceptRollback', [{ passphrase: 'not the passphrase at all' }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(ok<{ rolledBack: boolean }>(await dispatch(third.handlers, 'vaultStatus', [])).rolledBack).toBe(true);
    ok(await dispatch(third.handlers, 'vaultAcceptRollback', [{ passphrase: PASS }]));
    expect(ok<{ rolledBack: boolean }>(await dispatch(third.handlers, 'vaultStatus', [])).rolledBack).toBe(false);
    expect(await claude.view({ command: 'view', path: '/memories' })).toContain('old.md');
    await third.session.close();

    const fourth = app(dir);
    expect(ok<{ rolledBack: boolean }>(await dispatch(fourth.handlers, 'vaultUnlock', [{ passphrase: PASS }])).rolledBack).toBe(false);
    await fourth.session.close();
  });
});

describe('strengthening key derivation from Settings', () => {
  it('never lowers the cost, adds a pass when this computer measures no higher, and stops at the ceiling', async () => {
    const { strongerKdf } = await import('../../../electron/main/handlers/kdf');
    const MiB = 1024 * 1024;
    expect(strongerKdf({ opslimit: 2, memlimit: 64 * MiB }, { opslimit: 3, memlimit: 256 * MiB })).toEqual({ opslimit: 3, memlimit: 256 * MiB });
    expect(strongerKdf({ opslimit: 4, memlimit: 256 * MiB }, { opslimit: 2, memlimit: 128 * MiB })).toEqual({ opslimit: 5, memlimit: 256 * MiB });
    expect(strongerKdf({ opslimit: 2, memlimit: 512 * MiB }, { opslimit: 3, memlimit: 256 * MiB })).toEqual({ opslimit: 3, memlimit: 512 * MiB });
    expect(strongerKdf({ opslimit: 10, memlimit: 1024 * MiB }, { opslimit: 3, memlimit: 256 * MiB })).toBeUndefined();
  });

  it('needs the passphrase, raises the cost in vault.json, and the same passphrase still unlocks', async () => {
    const dir = await root();
    const a = app(dir);
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const before = a.session.unlocked().passphraseKdf();
    expect(await dispatch(a.handlers, 'vaultStrengthenKdf', [{ passphrase: 'not the passphrase at all' }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(a.session.unlocked().passphraseKdf()).toEqual(before);
    const r = ok<{ opslimit: number; memlimitMiB: number }>(await dispatch(a.handlers, 'vaultStrengthenKdf', [{ passphrase: PASS }]));
    const after = a.session.unlocked().passphraseKdf();
    expect(after.opslimit * after.memlimit).toBeGreaterThan(before.opslimit * before.memlimit);
    expect(r).toEqual({ opslimit: after.opslimit, memlimitMiB: after.memlimit / 1024 / 1024 });
    const header = JSON.parse(await fs.readFile(path.join(vaultDirIn(dir), 'vault.json'), 'utf8')) as { slots: Array<{ type: string; kdf?: { opslimit: number; memlimit: number } }> };
    expect(header.slots.find((s) => s.type === 'passphrase')?.kdf).toMatchObject(after);
    await dispatch(a.handlers, 'vaultLock', []);
    ok(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }]));
    await a.session.close();
  }, 120_000);
});
