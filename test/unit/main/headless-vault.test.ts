/** The window never offers, and main never makes, a new vault over a vault folder that lost its vault.json. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/main/handlers';
import { vaultDirIn } from '../../../electron/core/app-paths';
import { Vault } from '../../../electron/core/vault/vault';
import { snapshot } from '../cli/helpers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'lantern orbit meadow quartz 8142 ferry';
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('a vault folder without vault.json, in the app', () => {
  it('is reported as existing (so the window asks to unlock, not to create), unlock says what is missing, and create is refused', async () => {
    const userData = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-headless-'));
    dirs.push(userData);
    const stateDir = path.join(userData, 'state');
    const made = await Vault.create(vaultDirIn(userData), PASS, { kdf: KDF, stateDir });
    await made.vault.close();
    await fs.rm(path.join(vaultDirIn(userData), 'vault.json'));
    const before = await snapshot(vaultDirIn(userData));
    const { handlers } = createHandlers({ userDataDir: userData, stateDir, env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
    expect(await handlers.vaultStatus()).toMatchObject({ exists: true, unlocked: false });
    await expect(handlers.vaultUnlock({ passphrase: PASS })).rejects.toMatchObject({ code: 'DAMAGED', message: expect.stringMatching(/vault\.json.*backup/s) });
    await expect(handlers.vaultCreate({ passphrase: PASS })).rejects.toMatchObject({});
    expect(await snapshot(vaultDirIn(userData))).toEqual(before);
  });
});
