/** A page that tries passphrases in a loop is slowed, and never runs key derivations side by side. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { FREE_TRIES } from '../../../electron/main/handlers/guesses';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'amber-kettle-orbit-sonnet-42';
const roots: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const d of roots.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function app() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-guess-'));
  roots.push(dir);
  const clock = { t: 1_000_000 };
  const a = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, now: () => clock.t, pickDirectory: async () => undefined, emit: () => undefined });
  expect((await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  return { ...a, clock };
}

describe('wrong passphrases from the window', () => {
  it('after the free tries, the next try waits (even the right one) and nothing unlocks; the wait doubles; a right one clears the count', async () => {
    const a = await app();
    await dispatch(a.handlers, 'vaultLock', []);
    for (let i = 0; i < FREE_TRIES; i++) {
      expect(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: `wrong-guess-${i}` }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE', message: expect.stringMatching(/^Wrong/) } });
    }
    expect(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE', message: 'Too many wrong tries. Wait 1 second, then try again. Nothing was changed.' } });
    expect(a.session.isUnlocked()).toBe(false);
    // The recovery key is guessed through the same gate.
    expect(await dispatch(a.handlers, 'vaultUnlockWithRecoveryKey', [{ recoveryKey: 'AAAA-BBBB' }])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^Too many wrong tries/) } });
    a.clock.t += 1000;
    expect(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: 'wrong-again' }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    a.clock.t += 1000;
    expect(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/Wait 1 second/) } });
    a.clock.t += 1000;
    expect((await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }])).ok).toBe(true);
    // Cleared: a passphrase-guarded action takes wrong tries afresh.
    expect(await dispatch(a.handlers, 'vaultAcceptRollback', [{ passphrase: 'wrong-guess' }])).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^Wrong/) } });
    await a.session.close();
  });

  it('passphrase-guarded actions count too, and a flood of them derives one key at a time', async () => {
    const a = await app();
    let running = 0;
    let most = 0;
    const real = Vault.prototype.verifyPassphrase;
    vi.spyOn(Vault.prototype, 'verifyPassphrase').mockImplementation(async function (this: Vault, passphrase: string) {
      most = Math.max(most, ++running);
      try {
        return await real.call(this, passphrase);
      } finally {
        running--;
      }
    });
    const calls = Array.from({ length: 8 }, (_, i) => dispatch(a.handlers, i % 2 ? 'vaultStrengthenKdf' : 'vaultExportPlaintext', [{ passphrase: `guess-${i}` }]));
    const results = await Promise.all(calls);
    expect(most).toBe(1);
    expect(results.filter((r) => !r.ok && /^Wrong/.test(r.error.message))).toHaveLength(FREE_TRIES);
    expect(results.filter((r) => !r.ok && /^Too many wrong tries/.test(r.error.message))).toHaveLength(8 - FREE_TRIES);
    await a.session.close();
  });
});
