/** Main refuses a weak passphrase whatever the window says, and answers the meter's questions. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const STRONG = 'amber-kettle-orbit-sonnet-42';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fresh() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-strength-'));
  dirs.push(dir);
  return { ...createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined }), dir };
}

describe('weak passphrases are refused in main', () => {
  it.each(['Football2024!!', 'Summer2024!Summer', 'password123456'])('vaultCreate refuses %s, naming the weakness, and creates nothing', async (weak) => {
    const { handlers, session, dir } = await fresh();
    const r = await dispatch(handlers, 'vaultCreate', [{ passphrase: weak }]);
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    if (!r.ok) {
      expect(r.error.message).toMatch(/too weak/);
      expect(r.error.message).not.toContain(weak);
    }
    expect(await session.exists()).toBe(false);
    expect(await fs.readdir(dir)).not.toContain('vault');
    await session.close();
  });

  it('vaultChangePassphrase refuses a weak new passphrase and the old one still opens the vault', async () => {
    const { handlers, session } = await fresh();
    expect((await dispatch(handlers, 'vaultCreate', [{ passphrase: STRONG }])).ok).toBe(true);
    const r = await dispatch(handlers, 'vaultChangePassphrase', [{ current: STRONG, next: 'Summer2024!Summer' }]);
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID', message: expect.stringMatching(/too weak/) } });
    await dispatch(handlers, 'vaultLock', []);
    expect(await dispatch(handlers, 'vaultUnlock', [{ passphrase: 'Summer2024!Summer' }])).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect((await dispatch(handlers, 'vaultUnlock', [{ passphrase: STRONG }])).ok).toBe(true);
    await session.close();
  });

  it('passphraseStrength answers score, verdict and feedback, and nothing else', async () => {
    const { handlers, session } = await fresh();
    const weak = await dispatch(handlers, 'passphraseStrength', [{ passphrase: 'Football2024!!' }]);
    expect(weak).toMatchObject({ ok: true, value: { acceptable: false } });
    if (weak.ok) expect(Object.keys(weak.value as object).sort()).toEqual(['acceptable', 'feedback', 'score', 'suggestions', 'warning']);
    expect(await dispatch(handlers, 'passphraseStrength', [{ passphrase: STRONG }])).toMatchObject({ ok: true, value: { score: 4, acceptable: true } });
    await session.close();
  });
});
